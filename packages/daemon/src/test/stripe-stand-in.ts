import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

// A stand-in for the Stripe API (which cannot be reached from here) that the real `stripe` SDK talks to through
// its host/port/protocol options. It checks what the SDK really sends (bearer key, Stripe-Version, form-encoded
// bodies with bracket keys) and answers with Stripe-shaped JSON, so the adapter is tested against the wire format
// rather than against mocks of the SDK. Only the endpoints svcd uses exist; anything else is Stripe's 404.

export const STAND_IN_SECRET_KEY = 'sk_test_standin_0123456789';
export const STAND_IN_WEBHOOK_SECRET = 'whsec_standin_0123456789abcdef';

export interface RecordedRequest {
  method: string;
  /** Without the query string. */
  path: string;
  /** The form body (POST) or the query (GET), keys as sent: `line_items[0][price]`. */
  params: Record<string, string>;
  headers: Record<string, string | undefined>;
}

interface Price {
  id: string;
  object: 'price';
  active: boolean;
  currency: string;
  unit_amount: number;
  lookup_key: string;
  recurring: { interval: 'month' | 'year'; interval_count: number };
  type: 'recurring';
  livemode: false;
}

type Json = Record<string, unknown>;

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export interface StripeStandIn {
  /** http://127.0.0.1:<port>, for SVC_STRIPE_API_URL / the provider's apiUrl. */
  url: string;
  requests: RecordedRequest[];
  /** The requests to a path (`/v1/checkout/sessions`), in order. */
  requestsTo(method: string, path: string): RecordedRequest[];
  priceOf(lookupKey: string): Price;
  addPromotionCode(code: string, active?: boolean): string;
  /** What Stripe does when the customer pays: a subscription for the session's customer and price. */
  completeCheckout(sessionId: string, options?: { status?: string }): Json;
  subscription(subscriptionId: string): Json;
  /** Changes a stored subscription as a dashboard action would (status, cancel_at_period_end, price). */
  updateSubscription(subscriptionId: string, change: { status?: string; cancel_at_period_end?: boolean; lookupKey?: string }): Json;
  addInvoice(customerId: string, fields?: Partial<{ amount_due: number; status: string; created: number }>): Json;
  /** A webhook event as Stripe sends it. */
  event(type: string, object: Json, created?: number): Json;
  /** The body and Stripe-Signature header of a webhook delivery, signed with `secret`. */
  signed(event: Json, secret?: string, timestamp?: number): { body: string; signature: string };
  /** The next request to `path` answers with this HTTP status and a Stripe api_error (tests of outages). */
  failNext(path: string, status: number): void;
  close(): Promise<void>;
}

/**
 * `clock` is Stripe's time (object and event times, webhook signatures): a test's fixed clock, so Stripe and the
 * daemon under test agree; the real time by default, for a daemon process on the real clock.
 */
export async function startStripeStandIn(options: { secretKey?: string; clock?: () => Date } = {}): Promise<StripeStandIn> {
  const secretKey = options.secretKey ?? STAND_IN_SECRET_KEY;
  const clock = options.clock ?? (() => new Date());
  const nowSeconds = () => Math.floor(clock().getTime() / 1000);
  const requests: RecordedRequest[] = [];
  const customers = new Map<string, Json>();
  const idempotent = new Map<string, Json>();
  const prices = new Map<string, Price>();
  const promotionCodes = new Map<string, Json>();
  const sessions = new Map<string, Json>();
  const subscriptions = new Map<string, Json>();
  const invoices: Json[] = [];
  const failures = new Map<string, number>();

  const amounts: Record<string, number> = { dev: 1900, team: 9900, business: 49900 };
  for (const tier of ['dev', 'team', 'business']) {
    for (const cycle of ['monthly', 'annual'] as const) {
      const price: Price = {
        id: id('price'),
        object: 'price',
        active: true,
        currency: 'usd',
        unit_amount: (amounts[tier] ?? 0) * (cycle === 'annual' ? 10 : 1),
        lookup_key: `svc_${tier}_${cycle}`,
        recurring: { interval: cycle === 'annual' ? 'year' : 'month', interval_count: 1 },
        type: 'recurring',
        livemode: false,
      };
      prices.set(price.id, price);
    }
  }
  const priceByKey = (key: string) => [...prices.values()].find((price) => price.lookup_key === key);

  const list = (url: string, data: unknown[], hasMore = false): Json => ({ object: 'list', data, has_more: hasMore, url });

  function subscriptionObject(customer: string, price: Price, metadata: Json, status = 'active'): Json {
    const subscriptionId = id('sub');
    const start = nowSeconds();
    const end = start + (price.recurring.interval === 'year' ? 365 : 30) * 86_400;
    return {
      id: subscriptionId,
      object: 'subscription',
      customer,
      status,
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      collection_method: 'charge_automatically',
      created: start,
      currency: price.currency,
      livemode: false,
      metadata,
      items: list(`/v1/subscription_items?subscription=${subscriptionId}`, [
        {
          id: id('si'),
          object: 'subscription_item',
          created: start,
          current_period_start: start,
          current_period_end: end,
          metadata: {},
          price,
          quantity: 1,
          subscription: subscriptionId,
        },
      ]),
    };
  }

  function stripeError(response: ServerResponse, status: number, type: string, message: string, extra: Json = {}): void {
    send(response, status, { error: { type, message, ...extra } });
  }

  function send(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
    response.end(JSON.stringify(body));
  }

  async function readBody(request: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    const method = request.method ?? 'GET';
    const raw = method === 'GET' ? url.search.slice(1) : await readBody(request);
    if (method === 'POST' && raw !== '' && !String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      return stripeError(response, 400, 'invalid_request_error', 'Stripe expects a form-encoded body.');
    }
    const params = Object.fromEntries(new URLSearchParams(raw));
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]));
    requests.push({ method, path: url.pathname, params, headers });

    if (request.headers.authorization !== `Bearer ${secretKey}`) {
      return stripeError(response, 401, 'invalid_request_error', 'Invalid API Key provided.');
    }
    if (request.headers['stripe-version'] !== Stripe.API_VERSION) {
      return stripeError(response, 400, 'invalid_request_error', `Unexpected Stripe-Version ${String(request.headers['stripe-version'])}.`);
    }
    const failure = failures.get(url.pathname);
    if (failure !== undefined) {
      failures.delete(url.pathname);
      return stripeError(response, failure, 'api_error', 'The stand-in was told to fail.');
    }
    const key = request.headers['idempotency-key'];
    const replay = method === 'POST' && typeof key === 'string' ? idempotent.get(key) : undefined;
    if (replay !== undefined) return send(response, 200, replay);
    const answer = (body: Json) => {
      if (method === 'POST' && typeof key === 'string') idempotent.set(key, body);
      send(response, 200, body);
    };

    const path = url.pathname;
    let match: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/customers') {
      const customer = { id: id('cus'), object: 'customer', email: params['email'] ?? null, metadata: metadataOf(params), created: nowSeconds(), livemode: false };
      customers.set(customer.id, customer);
      return answer(customer);
    }
    if (method === 'GET' && path === '/v1/prices') {
      const keys = Object.entries(params).filter(([name]) => name.startsWith('lookup_keys[')).map(([, value]) => value);
      const found = [...prices.values()].filter((price) => keys.length === 0 || keys.includes(price.lookup_key));
      const active = params['active'] === undefined ? found : found.filter((price) => String(price.active) === params['active']);
      return answer(list('/v1/prices', active.slice(0, Number(params['limit'] ?? 10))));
    }
    if (method === 'GET' && path === '/v1/promotion_codes') {
      const found = [...promotionCodes.values()].filter(
        (promotion) => (params['code'] === undefined || promotion['code'] === params['code']) && (params['active'] === undefined || String(promotion['active']) === params['active']),
      );
      return answer(list('/v1/promotion_codes', found.slice(0, Number(params['limit'] ?? 10))));
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const customer = params['customer'];
      if (customer === undefined || !customers.has(customer)) {
        return stripeError(response, 400, 'invalid_request_error', `No such customer: '${String(customer)}'`, { code: 'resource_missing', param: 'customer' });
      }
      const price = prices.get(params['line_items[0][price]'] ?? '');
      if (price === undefined) return stripeError(response, 400, 'invalid_request_error', 'No such price', { code: 'resource_missing', param: 'line_items[0][price]' });
      if (params['allow_promotion_codes'] !== undefined && params['discounts[0][promotion_code]'] !== undefined) {
        return stripeError(response, 400, 'invalid_request_error', 'You may only specify one of these parameters: allow_promotion_codes, discounts.');
      }
      const session = {
        id: `cs_test_${randomBytes(24).toString('hex')}`,
        object: 'checkout.session',
        mode: params['mode'],
        status: 'open',
        customer,
        client_reference_id: params['client_reference_id'] ?? null,
        metadata: metadataOf(params),
        subscription: null,
        success_url: params['success_url'],
        cancel_url: params['cancel_url'],
        allow_promotion_codes: params['allow_promotion_codes'] === 'true' ? true : null,
        url: `https://checkout.stripe.com/c/pay/cs_test_${randomBytes(8).toString('hex')}`,
        livemode: false,
        // Kept for completeCheckout; Stripe returns line items only when expanded.
        _price: price.id,
        _subscription_metadata: metadataOf(params, 'subscription_data[metadata]'),
      };
      sessions.set(session.id, session);
      const { _price: _p, _subscription_metadata: _m, ...visible } = session;
      return answer(visible);
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!customers.has(params['customer'] ?? '')) return stripeError(response, 400, 'invalid_request_error', 'No such customer', { code: 'resource_missing' });
      return answer({
        id: id('bps'),
        object: 'billing_portal.session',
        customer: params['customer'],
        return_url: params['return_url'] ?? null,
        url: `https://billing.stripe.com/p/session/test_${randomBytes(12).toString('hex')}`,
        livemode: false,
      });
    }
    if ((match = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)) !== null) {
      const subscription = subscriptions.get(match[1] ?? '');
      if (subscription === undefined) {
        return stripeError(response, 404, 'invalid_request_error', `No such subscription: '${match[1]}'`, { code: 'resource_missing', param: 'id' });
      }
      if (method === 'GET') return answer(subscription);
      if (method === 'POST') {
        if (params['cancel_at_period_end'] !== undefined) subscription['cancel_at_period_end'] = params['cancel_at_period_end'] === 'true';
        const newPrice = params['items[0][price]'];
        if (newPrice !== undefined) {
          const item = (subscription['items'] as { data: Json[] }).data[0];
          if (item === undefined || params['items[0][id]'] !== item['id']) {
            return stripeError(response, 400, 'invalid_request_error', 'Unknown subscription item', { param: 'items[0][id]' });
          }
          const price = prices.get(newPrice);
          if (price === undefined) return stripeError(response, 400, 'invalid_request_error', 'No such price', { param: 'items[0][price]' });
          item['price'] = price;
        }
        return answer(subscription);
      }
    }
    if (method === 'GET' && path === '/v1/invoices') {
      const mine = invoices.filter((invoice) => invoice['customer'] === params['customer']).sort((a, b) => Number(b['created']) - Number(a['created']));
      const after = params['starting_after'];
      const start = after === undefined ? 0 : mine.findIndex((invoice) => invoice['id'] === after) + 1;
      const limit = Number(params['limit'] ?? 10);
      return answer(list('/v1/invoices', mine.slice(start, start + limit), start + limit < mine.length));
    }
    return stripeError(response, 404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => stripeError(response, 500, 'api_error', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsTo: (method, path) => requests.filter((request) => request.method === method && request.path === path),
    priceOf(lookupKey) {
      const price = priceByKey(lookupKey);
      if (price === undefined) throw new Error(`no price ${lookupKey}`);
      return price;
    },
    addPromotionCode(code, active = true) {
      const promotion = { id: id('promo'), object: 'promotion_code', code, active, livemode: false };
      promotionCodes.set(promotion.id, promotion);
      return promotion.id;
    },
    completeCheckout(sessionId, { status = 'active' } = {}) {
      const session = sessions.get(sessionId);
      const price = prices.get(String(session?.['_price']));
      if (session === undefined || price === undefined) throw new Error(`no checkout session ${sessionId}`);
      const subscription = subscriptionObject(String(session['customer']), price, session['_subscription_metadata'] as Json, status);
      subscriptions.set(String(subscription['id']), subscription);
      session['status'] = 'complete';
      session['subscription'] = subscription['id'];
      return subscription;
    },
    subscription(subscriptionId) {
      const subscription = subscriptions.get(subscriptionId);
      if (subscription === undefined) throw new Error(`no subscription ${subscriptionId}`);
      return structuredClone(subscription);
    },
    updateSubscription(subscriptionId, change) {
      const subscription = subscriptions.get(subscriptionId);
      if (subscription === undefined) throw new Error(`no subscription ${subscriptionId}`);
      if (change.status !== undefined) subscription['status'] = change.status;
      if (change.cancel_at_period_end !== undefined) subscription['cancel_at_period_end'] = change.cancel_at_period_end;
      if (change.lookupKey !== undefined) {
        const item = (subscription['items'] as { data: Json[] }).data[0];
        if (item !== undefined) item['price'] = priceByKey(change.lookupKey);
      }
      return structuredClone(subscription);
    },
    addInvoice(customerId, fields = {}) {
      const invoiceId = id('in');
      const invoice = {
        id: invoiceId,
        object: 'invoice',
        customer: customerId,
        number: `SVC-${String(invoices.length + 1).padStart(4, '0')}`,
        status: fields.status ?? 'paid',
        amount_due: fields.amount_due ?? 1900,
        amount_paid: fields.status === 'open' ? 0 : (fields.amount_due ?? 1900),
        currency: 'usd',
        created: fields.created ?? nowSeconds() - invoices.length,
        hosted_invoice_url: `https://invoice.stripe.com/i/acct_test/${invoiceId}`,
        invoice_pdf: `https://pay.stripe.com/invoice/acct_test/${invoiceId}/pdf`,
        livemode: false,
      };
      invoices.push(invoice);
      return invoice;
    },
    event(type, object, created = nowSeconds()) {
      return {
        id: id('evt'),
        object: 'event',
        api_version: Stripe.API_VERSION,
        created,
        data: { object },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
      };
    },
    signed(event, secret = STAND_IN_WEBHOOK_SECRET, timestamp = nowSeconds()) {
      const body = JSON.stringify(event, null, 2);
      return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp }) };
    },
    failNext(path, status) {
      failures.set(path, status);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `metadata[a]=b` form keys back into an object. */
function metadataOf(params: Record<string, string>, prefix = 'metadata'): Json {
  const metadata: Json = {};
  for (const [name, value] of Object.entries(params)) {
    const match = /^(.+)\[([^\]]+)\]$/.exec(name);
    if (match?.[1] === prefix && match[2] !== undefined) metadata[match[2]] = value;
  }
  return metadata;
}
