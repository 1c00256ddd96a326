/** Decision “Service client”: placeholders until the real addresses are configured; pass baseUrl to override. */
export const SERVICE_BASE_URLS = {
  sandbox: 'https://sandbox.api.service.example',
  production: 'https://api.service.example',
} as const;
export type ServiceEnvironment = keyof typeof SERVICE_BASE_URLS;
