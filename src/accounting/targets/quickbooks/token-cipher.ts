// The sealing is shared with the other OAuth targets (../oauth/token-cipher.ts).
export { TokenCipher } from '../oauth/token-cipher.js';
