// `gateway.acp.profiles`: the profile store with the person's consent. A profile saved through the
// in-process contract is trusted code's decision and counts as confirmed; one proposed through the
// app (`propose`: Settings, the registry) is stored only once the person allowed its exact command
// line, and again whenever that changes or agents are newly allowed to start it. Before an agent
// process starts, its revision must have been allowed (older profiles are asked for then).
import { DEFAULT_ACP_REACH, REACH_RULES, REACH_WIDTH, type Reach } from '../../../../shared/ipc/reach';
import type { Consent, CommandLine } from '../../trust/consent';
import type { AcpProfile } from '../../types';
import { AcpCommandNotFoundError, resolveCommand } from './command';
import { sameCommandLine, type AcpProfileStore, type StoredAcpProfile } from './profile-store';

export type AcpProfiles = ReturnType<typeof createAcpProfiles>;

/** A paired node an agent starts on (issue 30.1). */
type NodeName = { id: string; name: string };

const consentKey = (p: StoredAcpProfile) => `acp-profile:${p.id}:${p.rev}`;

/** The question names every safeguard the profile goes without (issue 29.3). */
function title(p: AcpProfile): string {
  const reach: Reach = p.reach ?? DEFAULT_ACP_REACH;
  const notes = [
    ...(p.allowAgents ? ['agents may start it too'] : []),
    ...(!p.askTerminal ? ['its terminal commands run without asking you'] : []),
    ...(REACH_WIDTH[reach] > REACH_WIDTH[DEFAULT_ACP_REACH] ? [`its tools reach ${REACH_RULES[reach]}`] : []),
  ];
  return `Run the ACP agent "${p.name}"${notes.length ? ` (${notes.join('; ')})` : ''}`;
}

/**
 * Whether `p` lowers a safeguard `before` kept: agents newly allowed to start it, "ask before
 * terminal commands" switched off, or its credentials' reach widened. Each is the person's say.
 */
function lowersSafeguard(before: StoredAcpProfile, p: AcpProfile): boolean {
  return (
    (p.allowAgents === true && !before.allowAgents) ||
    (!p.askTerminal && before.askTerminal) ||
    REACH_WIDTH[p.reach ?? DEFAULT_ACP_REACH] > REACH_WIDTH[before.reach]
  );
}

/** The program as it will run: resolved on PATH when it can be, else as written. */
function programOf(p: AcpProfile): string {
  try {
    return resolveCommand(p);
  } catch (err) {
    if (err instanceof AcpCommandNotFoundError) return p.command;
    throw err;
  }
}

export function createAcpProfiles(deps: { store: AcpProfileStore; consent: Consent }) {
  const { store, consent } = deps;
  const remember = (saved: StoredAcpProfile) =>
    consent.remember(consentKey(saved), `${saved.command} ${saved.args.join(' ')}`);

  /** The contract's view: what was stored, without the internal revision. */
  const plain = ({
    rev: _rev,
    ...p
  }: StoredAcpProfile): AcpProfile & { allowAgents: boolean; askTerminal: boolean } => p;

  return {
    list: () => store.list().map(plain),
    get: (id: string) => {
      const p = store.get(id);
      return p ? plain(p) : undefined;
    },
    remove: store.remove,
    resealAll: store.resealAll,
    /** For the runtime: profiles with their revision. */
    stored: { list: store.list, get: store.get },

    /** Trusted (in-process): stored and confirmed. */
    save(p: AcpProfile) {
      const saved = store.save(p);
      remember(saved);
      return plain(saved);
    },

    /** Through the app: stored once the person allowed it; throws ConsentDeclinedError otherwise. */
    async propose(p: AcpProfile) {
      const before = store.get(p.id);
      const unchanged =
        before !== undefined &&
        sameCommandLine(before, { ...p, env: p.env ?? {} }) &&
        consent.remembered(consentKey(before)) &&
        !lowersSafeguard(before, p);
      if (!unchanged) {
        await consent.confirm({
          kind: 'acp-profile',
          title: title(p),
          command: {
            program: programOf(p),
            args: p.args,
            env: p.env ?? {},
            ...(p.cwd ? { cwd: p.cwd } : {}),
          },
          allowAgents: p.allowAgents ?? false,
        });
      }
      const saved = store.save(p);
      remember(saved);
      return plain(saved);
    },

    /**
     * Before the agent process starts: its exact command line, allowed now or before. On a paired
     * node (issue 30.1) the question names the node (the folder is the command's cwd there), and
     * a yes for this machine is not one for the node.
     */
    confirmStart(p: StoredAcpProfile, command: CommandLine, sessionKey: string, node?: NodeName) {
      const where = node ? ` on the node "${node.name}"` : '';
      const remember = node ? `${consentKey(p)}@node:${node.id}` : consentKey(p);
      const question = { kind: 'acp-profile', title: `${title(p)}${where}`, command, sessionKey } as const;
      return consent.confirm({ ...question, allowAgents: p.allowAgents }, { remember });
    },
  };
}
