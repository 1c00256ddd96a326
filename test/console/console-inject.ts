import { expect } from 'vitest';
import type { IngressApp } from '../../src/ingress/ingress-app.js';

// Driving the console through inject as a browser does: the sign-in form and its token, the POST, the
// session cookie and the CSRF token its pages carry.

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const formHeaders = (cookie?: string) => ({
  'content-type': 'application/x-www-form-urlencoded',
  ...(cookie ? { cookie } : {}),
});
export const cookieOf = (setCookie: string | string[] | undefined, name: string) =>
  [setCookie ?? []].flat().find((c) => c.startsWith(`${name}=`)) ?? '';
export const csrfIn = (body: string) => /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

/** A sign-in form as served: its token and the cookie sent with it. */
export async function signInForm(target: IngressApp, remoteAddress?: string) {
  const page = await target.inject({
    method: 'GET',
    url: '/console/sign-in',
    headers: { accept: 'text/html' },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  return {
    token: csrfIn(page.body),
    cookie: cookieOf(page.headers['set-cookie'], 'booksync_console_sign_in').split(';')[0] as string,
  };
}

export interface SignInFields {
  account?: string;
  password: string;
  /** Anything else the client sends (a name it types...). */
  extra?: Record<string, string>;
  remoteAddress?: string;
  headers?: Record<string, string>;
}

/** The sign-in POST with a given form (token and cookie). */
export function postSignIn(
  target: IngressApp,
  signInForm: { token: string; cookie: string },
  fields: SignInFields,
) {
  return target.inject({
    method: 'POST',
    url: '/console/sign-in',
    headers: { ...formHeaders(signInForm.cookie), ...fields.headers },
    ...(fields.remoteAddress ? { remoteAddress: fields.remoteAddress } : {}),
    payload: form({
      _csrf: signInForm.token,
      account: fields.account ?? 'bookkeeper',
      password: fields.password,
      next: '/console/sync-errors',
      ...fields.extra,
    }),
  });
}

/** Signs in as a browser does: the form (and its token), then the POST. Returns the response. */
export async function signIn(
  target: IngressApp,
  password: string,
  fields: Omit<SignInFields, 'password'> = {},
) {
  return postSignIn(target, await signInForm(target, fields.remoteAddress), { ...fields, password });
}

/** A signed-in session: its cookie and the CSRF token its pages carry. */
export async function session(target: IngressApp, password: string, account = 'bookkeeper') {
  const signedIn = await signIn(target, password, { account });
  expect(signedIn.statusCode).toBe(303);
  const cookie = cookieOf(signedIn.headers['set-cookie'], 'booksync_console').split(';')[0] as string;
  const overview = await target.inject({ method: 'GET', url: '/console', headers: { cookie } });
  return { cookie, csrf: csrfIn(overview.body), overview };
}
