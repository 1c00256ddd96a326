// The contract of a resync (workflows/resync.ts): `booksync resync` starts it by this name, importing no workflow code.

export const resyncWorkflowType = 'resync';
