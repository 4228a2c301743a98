import { eventCategory, type ServerEvent } from '../../core/protocol/index.ts';

/**
 * Which events sentinels see: server-state and agentic-backbone events, never sentinel or
 * connection events. Transitions a sentinel itself causes (its costs, its states) are left out too,
 * or a sentinel triggered by state.transition would trigger itself forever.
 */
export function seenBySentinels(event: ServerEvent): boolean {
  const category = eventCategory[event.type];
  if (category !== 'server-state' && category !== 'agentic-backbone') return false;
  if (event.type !== 'state.transition') return true;
  const { transitionType, transition } = event.data;
  if (transitionType === 'SentinelStatesUpdated') return false;
  return !(transitionType === 'CostsIncremented' && transition.data.source === 'sentinel');
}
