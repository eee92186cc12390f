// The login terminal's output on screen (renderer/src/features/agents/login-stream.ts): every
// character once and in order, from the kept output and the pushed chunks by their offsets,
// whatever arrives first, twice, or not at all; the person's paste in pieces the channel takes.
import { describe, expect, it } from 'vitest';
import { createLoginStream, inputPieces, NOT_KEPT } from '../../renderer/src/features/agents/login-stream';
import { LOGIN_INPUT_MAX } from '../../shared/ipc/login-terminals';

function screen() {
  let text = '';
  const stream = createLoginStream((d) => (text += d));
  return { stream, text: () => text };
}

describe('a login terminal`s output stream', () => {
  it('writes the kept output once, then only what is new in each chunk', () => {
    const s = screen();
    s.stream.catchUp({ output: 'Hello, ', end: 7 });
    expect(s.stream.push(0, 'Hello, ')).toBe(true); // already shown
    expect(s.stream.push(5, ', world')).toBe(true); // overlaps: only "world"
    expect(s.stream.push(12, '!')).toBe(true);
    expect(s.text()).toBe('Hello, world!');
  });

  it('chunks that come before the first view wait for it, without duplicates', () => {
    const s = screen();
    expect(s.stream.push(0, 'ab')).toBe(true);
    expect(s.stream.push(2, 'cd')).toBe(true);
    expect(s.text()).toBe('');
    s.stream.catchUp({ output: 'abc', end: 3 });
    expect(s.text()).toBe('abcd');
  });

  it('a chunk past what is shown means pushes were missed: catching up fills the gap', () => {
    const s = screen();
    s.stream.catchUp({ output: 'one ', end: 4 });
    expect(s.stream.push(8, 'three')).toBe(false);
    expect(s.text()).toBe('one ');
    s.stream.catchUp({ output: 'one two three', end: 13 });
    expect(s.text()).toBe('one two three');
  });

  it('a panel opened late shows what was kept, and says when more came before it', () => {
    const s = screen();
    s.stream.catchUp({ output: 'tail', end: 70_000 });
    expect(s.text()).toBe(`${NOT_KEPT}tail`);
    const fresh = screen();
    fresh.stream.catchUp({ output: 'all of it', end: 9 });
    expect(fresh.text()).toBe('all of it');
  });
});

describe('input pieces', () => {
  it('keystrokes pass as they are; a long paste is cut below the limit, never inside a surrogate pair', () => {
    expect(inputPieces('\x1b[A')).toEqual(['\x1b[A']);
    expect(inputPieces('\x03')).toEqual(['\x03']);
    const paste = `${'a'.repeat(LOGIN_INPUT_MAX - 1)}😀${'b'.repeat(10)}`;
    const pieces = inputPieces(paste);
    expect(pieces.map((p) => p.length)).toEqual([LOGIN_INPUT_MAX - 1, 12]);
    expect(pieces.join('')).toBe(paste);
    expect(inputPieces('x'.repeat(2 * LOGIN_INPUT_MAX + 1)).map((p) => p.length)).toEqual([
      LOGIN_INPUT_MAX,
      LOGIN_INPUT_MAX,
      1,
    ]);
  });
});
