import { client, methods, RequestError, type ClientApp } from '@agentclientprotocol/sdk';
import type { RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { AgentFiles, AgentTerminals } from './host';
import type { AcpLogger, AcpPermissionDecision, AcpPermissionRequest, AcpUpdate } from './types';
import { toPermissionRequest, type UpdateMapper } from './updates';

/** What the client-side handlers need from the AcpChild that owns them. */
export interface HandlerHost {
  readonly realRoot: string;
  readonly sessionId: string;
  readonly mapper: UpdateMapper;
  readonly terminals: AgentTerminals;
  readonly files: AgentFiles;
  readonly logger: AcpLogger;
  onUpdate(update: AcpUpdate): void;
  /** A `usage_update` (context window, cumulative cost), still to be parsed. */
  onUsage(update: unknown): void;
  onPermission(request: AcpPermissionRequest): Promise<AcpPermissionDecision>;
  /**
   * Resolves with 'cancelled' when the running prompt is cancelled or ends, so a question the
   * person never answers cannot hold the agent; undefined when no prompt is running.
   */
  permissionAbort(): Promise<AcpPermissionDecision> | undefined;
}

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

function checkSession(host: HandlerHost, sessionId: string): void {
  // Before session/new has answered there is no session id yet; nothing legitimate arrives then.
  if (sessionId !== host.sessionId) throw RequestError.sessionNotFound(sessionId);
}

async function askPermission(
  host: HandlerHost,
  params: Parameters<typeof toPermissionRequest>[0],
): Promise<RequestPermissionResponse> {
  const abort = host.permissionAbort();
  if (!abort) return CANCELLED;
  const request = toPermissionRequest(params, host.mapper);
  let decision: AcpPermissionDecision;
  try {
    decision = await Promise.race([host.onPermission(request), abort]);
  } catch (err) {
    host.logger.warn('ACP permission handler failed; answering cancelled', { error: String(err) });
    return CANCELLED;
  }
  if (decision.outcome === 'cancelled') return CANCELLED;
  if (!request.options.some((o) => o.optionId === decision.optionId)) {
    host.logger.warn('ACP permission decision names an option the agent did not offer; answering cancelled', {
      optionId: decision.optionId,
    });
    return CANCELLED;
  }
  return { outcome: { outcome: 'selected', optionId: decision.optionId } };
}

/** The client app: session updates, permission questions, confined fs and terminals. */
export function buildClientApp(host: HandlerHost): ClientApp {
  return client({ name: 'sightline' })
    .onNotification(methods.client.session.update, ({ params }) => {
      if (params.sessionId !== host.sessionId) return;
      if (params.update.sessionUpdate === 'usage_update') return host.onUsage(params.update);
      const update = host.mapper.map(params.update);
      if (!update) return;
      try {
        host.onUpdate(update);
      } catch (err) {
        // A bug in the consumer must not tear down the protocol connection.
        host.logger.warn('ACP onUpdate handler threw', { error: String(err) });
      }
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      checkSession(host, params.sessionId);
      return askPermission(host, params);
    })
    .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      checkSession(host, params.sessionId);
      return { content: await host.files.read(params.path, params.line, params.limit) };
    })
    .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      checkSession(host, params.sessionId);
      await host.files.write(params.path, params.content);
      return {};
    })
    .onRequest(methods.client.terminal.create, async ({ params }) => {
      checkSession(host, params.sessionId);
      return { terminalId: await host.terminals.create(params) };
    })
    .onRequest(methods.client.terminal.output, ({ params }) => {
      checkSession(host, params.sessionId);
      return host.terminals.output(params.terminalId);
    })
    .onRequest(methods.client.terminal.waitForExit, ({ params }) => {
      checkSession(host, params.sessionId);
      return host.terminals.waitForExit(params.terminalId);
    })
    .onRequest(methods.client.terminal.kill, async ({ params }) => {
      checkSession(host, params.sessionId);
      await host.terminals.kill(params.terminalId);
      return {};
    })
    .onRequest(methods.client.terminal.release, async ({ params }) => {
      checkSession(host, params.sessionId);
      await host.terminals.release(params.terminalId);
      return {};
    });
}
