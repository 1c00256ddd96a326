// The contract of the monthly close (src/flows/period-close/workflow.ts): the CLI, the Schedule and the console start it by this name, importing no workflow code.

export const periodCloseWorkflowType = 'periodClose';
