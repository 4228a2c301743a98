import { ConfigFile } from '../../plan/config/config-file.ts';
import { schemaFiles as planSchemaFiles, render } from '../../plan/json-schema.ts';
import { asyncApiYaml } from './asyncapi.ts';
import { protocolSchemaFiles } from './protocol-schemas.ts';

/** The command that rewrites schema/ (named in the test that fails when a file there is stale). */
export const REGENERATE = 'npm run schema';

/** Every file of schema/, by path relative to it: plan, sentinel and config files, the protocol's contract. */
export function contractFiles(): Record<string, string> {
  return {
    ...planSchemaFiles(),
    'config.schema.json': render(ConfigFile),
    ...protocolSchemaFiles(),
    'asyncapi.yaml': asyncApiYaml(),
  };
}
