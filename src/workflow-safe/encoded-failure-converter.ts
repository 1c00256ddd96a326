import { DefaultFailureConverter } from '@temporalio/common';

// With payload encryption on (PAYLOAD_KEYS), failures' messages and stack traces travel as an encoded payload
// (the codec encrypts it) instead of plain text: a target's refusal quotes the customer and the invoice. The
// worker loads it by path, in the workflow sandbox too (src/temporal/data-converter.ts).
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
