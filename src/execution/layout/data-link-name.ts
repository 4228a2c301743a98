/** The data directory's link name in the agent root (data-link.ts); apart so the browser bundle can import it. */
export const DATA_LINK_NAME = 'ribosome-data';
