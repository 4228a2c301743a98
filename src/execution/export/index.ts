/** `ribosome export`: an execution's completed codons handed back as a branch, a patch or files. */
export { checkExportArgs, type ExportFlags, type ExportRequest } from './args.ts';
export { runExport } from './export.ts';
export { selectLineage } from './lineage.ts';
export { ExportError } from './shadow.ts';
