/** A batch's results: each job's metrics from its execution, and the files written for the batch. */
export {
  type CompareOptions,
  type Comparison,
  compareJobs,
  type Group,
  type JobPoint,
  type Spread,
  spread,
} from './compare.ts';
export { jobMetrics, type MetricsCache } from './job-metrics.ts';
export { failureText, jobReason } from './job-text.ts';
export { junitXml } from './junit.ts';
export { summaryMarkdown } from './markdown.ts';
export { reportHtml } from './report-html.ts';
export { reportMarkdown } from './report-md.ts';
export { type WriteResultsOptions, writeResults } from './write-results.ts';
