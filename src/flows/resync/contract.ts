// The contract of a resync (src/flows/resync/workflow.ts): `booksync resync` starts it by this name, importing no workflow code.

export const resyncWorkflowType = 'resync';
