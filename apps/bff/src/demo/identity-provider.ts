// A real OpenID Provider (panva's oidc-provider) on loopback HTTP, in-process: the demo's
// identity provider and the tests' counterpart for the relying party. Its own sign-in and
// sign-out pages are plain server-rendered forms without script.
import { createHash, generateKeyPair, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import Provider, {
  type Adapter,
  type AdapterPayload,
  type Configuration,
  errors,
  type KoaContextWithOIDC,
} from 'oidc-provider';

export interface ProviderPerson {
  sub: string;
  /** The email they sign in with at this provider's form. */
  email: string;
  name: string;
  groups: string[];
  /**
   * Claims issued in place of the defaults (`email` as signed in with, `email_verified: true`):
   * an `undefined` value leaves the claim out, as a provider that never sends it does.
   */
  claims?: { email?: unknown; email_verified?: unknown };
}

export interface ProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /**
   * How this client authenticates at the token endpoint (oidc-provider allows one method per
   * client). Default 'client_secret_basic', the registration default of OIDC and RFC 7591;
   * openid-client sends 'client_secret_post' unless given `ClientSecretBasic(secret)`.
   */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post';
}

export interface IdentityProviderOptions {
  host?: string;
  port?: number;
  /** Shown on its sign-in page. */
  title?: string;
  /** A line under the title of the sign-in page (e.g. who the demo people are). */
  signInNote?: string;
  clients: ProviderClient[];
  /** Asked at every sign-in AND every token/claims issue, so a test can change someone's groups between sign-ins. */
  findPerson(email: string): ProviderPerson | undefined;
  /** Checked on the provider's own sign-in form. */
  checkPassword(email: string, password: string): boolean | Promise<boolean>;
  /** Seconds an ID token lives for this client (default 600). A test may return a negative number to get an already-expired token signed by the real provider. */
  idTokenTtlSeconds?: (clientId: string) => number;
  /** Unexpected failures (never a wrong password); default: console.error. */
  onError?: (error: unknown) => void;
}

export interface RunningIdentityProvider {
  issuer: string;
  close(): Promise<void>;
}

const SESSION_SECONDS = 8 * 60 * 60;
const MAX_FORM_BYTES = 16 * 1024;

export async function startIdentityProvider(
  options: IdentityProviderOptions,
): Promise<RunningIdentityProvider> {
  const host = options.host ?? '127.0.0.1';
  const title = options.title ?? 'Demo identity provider';
  const onError = options.onError ?? ((error) => console.error('identity provider:', error));
  const idTokenTtl = options.idTokenTtlSeconds ?? (() => 600);
  // oidc-provider keeps only the sub (accountId); findPerson is looked up by email.
  const emailBySub = new Map<string, string>();

  let handle: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    jwks: { keys: [await signingKey()] },
    cookies: {
      keys: [randomBytes(32).toString('base64url')],
      // Distinct from the BFF's cookie: a browser shares cookies across ports of one host.
      names: { session: 'idp_session', interaction: 'idp_interaction', resume: 'idp_resume' },
    },
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      post_logout_redirect_uris: client.postLogoutRedirectUris,
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? 'client_secret_basic',
      require_auth_time: true,
    })),
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    pkce: { required: () => true },
    scopes: ['openid'],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    // Scope claims in the ID token itself, so the RP needs no userinfo call.
    conformIdTokenClaims: false,
    clientBasedCORS: () => false,
    findAccount(_ctx, sub) {
      const email = emailBySub.get(sub);
      const person = email === undefined ? undefined : options.findPerson(email);
      if (!person || person.sub !== sub) return undefined;
      return {
        accountId: sub,
        claims: () => {
          const claims: Record<string, unknown> = {
            sub,
            email: person.email,
            email_verified: true,
            name: person.name,
            groups: [...person.groups],
            ...person.claims,
          };
          for (const [name, value] of Object.entries(claims))
            if (value === undefined) delete claims[name];
          return claims as { sub: string };
        },
      };
    },
    // First-party clients only: whatever they ask for is granted, no consent screen.
    async loadExistingGrant(ctx) {
      const { oidc } = ctx;
      const clientId = oidc.client?.clientId ?? '';
      const accountId = oidc.session?.accountId ?? '';
      const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(clientId);
      const existing = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
      const grant =
        existing?.accountId === accountId
          ? existing
          : new oidc.provider.Grant({ clientId, accountId });
      grant.addOIDCScope(oidc.requestParamOIDCScopes);
      grant.addOIDCClaims(oidc.requestParamClaims);
      await grant.save();
      return grant;
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) =>
          renderKoa(
            ctx,
            page(
              'Sign out',
              `<h1>Sign out of ${escapeHtml(title)}?</h1>${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
<button type="submit" form="op.logoutForm">Stay signed in</button>`,
            ),
          ),
        postLogoutSuccessSource: (ctx) =>
          renderKoa(
            ctx,
            page('Signed out', `<h1>You are signed out of ${escapeHtml(title)}.</h1>`),
          ),
      },
    },
    renderError: (ctx, out) =>
      renderKoa(
        ctx,
        page(
          'Sign-in problem',
          `<h1>Sign-in problem</h1><p>${escapeHtml(out.error_description ?? out.error)}</p>
<p>Go back to the application and start again.</p>`,
        ),
      ),
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: SESSION_SECONDS,
      // IdToken: through the model's hook below.
      Interaction: 15 * 60,
      Session: SESSION_SECONDS,
    },
  } satisfies Configuration);

  // ttl.IdToken must be a positive integer, but a test may ask for a negative one (an
  // already-expired token signed by the real provider): the IdToken model's own hook, whose
  // result is signed as exp = now + ttl, takes any number.
  Object.assign(provider.IdToken, {
    expiresIn: (_ctx: unknown, _token: unknown, client: { clientId: string }) =>
      idTokenTtl(client.clientId),
  });
  provider.on('server_error', (_ctx, error) => onError(error));

  const signInPage = (uid: string, email: string, error?: string) =>
    page(
      `Sign in · ${title}`,
      `<h1>${escapeHtml(title)}</h1>
${options.signInNote ? `<p>${escapeHtml(options.signInNote)}</p>` : ''}
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${encodeURIComponent(uid)}/login">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
    );

  async function interaction(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    uid: string,
    submitted: boolean,
  ) {
    const details = await provider.interactionDetails(req, res).catch((error: unknown) => {
      if (error instanceof errors.SessionNotFound) return undefined;
      throw error;
    });
    if (!details || details.uid !== uid) {
      return sendHtml(
        res,
        400,
        page(
          'Sign-in expired',
          `<h1>This sign-in has expired</h1>
<p>Go back to the application and sign in again.</p>`,
        ),
      );
    }
    if (details.prompt.name === 'consent') {
      // Only when the client asked for prompt=consent: loadExistingGrant has granted it all.
      return provider.interactionFinished(
        req,
        res,
        { consent: {} },
        { mergeWithLastSubmission: true },
      );
    }
    // 'login' covers no session, prompt=login and max_age (max_age=0 always asks again).
    const hint = typeof details.params.login_hint === 'string' ? details.params.login_hint : '';
    if (!submitted) return sendHtml(res, 200, signInPage(uid, hint));

    const form = await readForm(req);
    const email = (form.get('email') ?? '').trim().toLowerCase();
    const person = email ? options.findPerson(email) : undefined;
    const passwordOk =
      person !== undefined &&
      (await options.checkPassword(person.email, form.get('password') ?? ''));
    if (!person || !passwordOk)
      return sendHtml(res, 401, signInPage(uid, email, 'Wrong email or password.'));
    emailBySub.set(person.sub, person.email);
    await provider.interactionFinished(
      req,
      res,
      // A browser-session cookie at the provider: closing the browser ends it.
      { login: { accountId: person.sub, remember: false, amr: ['pwd'] } },
      { mergeWithLastSubmission: false },
    );
  }

  const providerCallback = provider.callback();
  handle = (req, res) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    const match = /^\/interaction\/([A-Za-z0-9_-]+)(\/login)?$/.exec(path);
    if (!match?.[1]) return void providerCallback(req, res);
    const submitted = match[2] !== undefined;
    if (req.method !== (submitted ? 'POST' : 'GET'))
      return sendHtml(res, 405, page('Not allowed', '<h1>Not allowed</h1>'));
    interaction(req, res, match[1], submitted).catch((error: unknown) => {
      if (error instanceof FormTooLarge)
        return sendHtml(res, 413, page('Too large', '<h1>Too large</h1>'));
      onError(error);
      if (!res.headersSent)
        sendHtml(res, 500, page('Something went wrong', '<h1>Something went wrong</h1>'));
      else res.destroy();
    });
  };

  return {
    issuer,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function signingKey() {
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: randomBytes(8).toString('base64url'), alg: 'RS256', use: 'sig' };
}

/**
 * oidc-provider's own memory adapter prints a "development-only" warning; this one is the
 * same idea (per provider, lost on restart) without the noise. Expired entries are dropped as
 * they are met and in a sweep at most once a second on writes; interactions are found by uid
 * through an index, not a scan (the tests sign in through it thousands of times a run).
 */
function memoryAdapter() {
  const entries = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const byUid = new Map<string, string>();
  let sweptAt = 0;
  const alive = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key);
    return entry && entry.expiresAt > Date.now() ? entry.payload : undefined;
  };
  const sweep = () => {
    const now = Date.now();
    if (now - sweptAt < 1000) return;
    sweptAt = now;
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
    for (const [uid, key] of byUid) if (!entries.has(key)) byUid.delete(uid);
  };
  return (model: string): Adapter => ({
    async upsert(id, payload, expiresIn) {
      sweep();
      const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY;
      entries.set(`${model}:${id}`, { payload, expiresAt });
      if (payload.uid) byUid.set(`${model}:${payload.uid}`, `${model}:${id}`);
    },
    async find(id) {
      return alive(`${model}:${id}`);
    },
    async findByUid(uid) {
      const key = byUid.get(`${model}:${uid}`);
      const payload = key === undefined ? undefined : alive(key);
      return payload?.uid === uid ? payload : undefined;
    },
    async findByUserCode(userCode) {
      for (const key of entries.keys()) {
        const payload = key.startsWith(`${model}:`) ? alive(key) : undefined;
        if (payload?.userCode === userCode) return payload;
      }
      return undefined;
    },
    async consume(id) {
      const payload = alive(`${model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    async destroy(id) {
      entries.delete(`${model}:${id}`);
    },
    async revokeByGrantId(grantId) {
      for (const [key, entry] of entries)
        if (entry.payload.grantId === grantId) entries.delete(key);
    },
  });
}

class FormTooLarge extends Error {}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new FormTooLarge();
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
label{display:block;margin-top:1rem;font-weight:600}input{display:block;width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
button{margin-top:1.25rem;margin-right:.5rem;padding:.5rem 1rem;font:inherit}.error{color:#a40000;font-weight:600}`;
// No script on these pages; the one stylesheet is allowed by its hash. No form-action: the
// sign-in form's redirect goes on to the client, which form-action would block in Chrome.
const CSP = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; frame-ancestors 'none'`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body></html>`;
}

function sendHtml(res: http.ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
  });
  res.end(html);
}

function renderKoa(ctx: KoaContextWithOIDC, html: string): void {
  ctx.type = 'html';
  ctx.set('cache-control', 'no-store');
  ctx.set('content-security-policy', CSP);
  ctx.body = html;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}
