// The IS_SANDBOX=1 checkbox both agent forms show when Sightline runs as root: Claude Code refuses
// to run as root without it (the registry's Add form and a saved profile's form).
export function SandboxAsRootField(props: {
  testId: string;
  checked: boolean;
  onChange: (on: boolean) => void;
}) {
  return (
    <label className="inline" data-testid={props.testId}>
      <input type="checkbox" checked={props.checked} onChange={(e) => props.onChange(e.target.checked)} />
      <span>
        Set <span className="mono">IS_SANDBOX=1</span>. Sightline runs as root here, and Claude Code refuses
        to run as root without it.
      </span>
    </label>
  );
}
