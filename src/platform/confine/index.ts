/**
 * Keeping paths inside a root: the built-in agent's file tools (the agent root), rig setup copies
 * and the archive (the agent root and rigArchive/) resolve every path here before touching it.
 */
export {
  type ConfinePathOptions,
  cachedLookup,
  confinePath,
  lookupEntry,
  realRoot,
} from './confine-path.ts';
export {
  type Confined,
  type ConfineOptions,
  confine,
  describeRefusal,
  type Entry,
  isInside,
  type Lookup,
  type Refusal,
} from './resolve.ts';
