// Streamed text on screen (issue 25.6): fleet rows and the live transcript block show complete
// lines, or whole words of a paragraph-long line, never "Step 5/8: working on" or half a word.
import { describe, expect, it } from 'vitest';
import { liveActivity, settledText } from '../../shared/activity';

describe('streamed text shown whole', () => {
  it('a row shows the last complete line, nothing before the first one ends', () => {
    expect(liveActivity('text', 'Step')).toBe('');
    expect(liveActivity('text', 'Step 1/8: working on x done.\nStep 2/8: wor')).toBe(
      'Step 1/8: working on x done.',
    );
  });

  it('the transcript shows complete lines; a short unfinished line waits', () => {
    expect(settledText('Step')).toBe('');
    expect(settledText('Step 5/8: working on')).toBe('');
    expect(settledText('Step 4/8: done.\nStep 5/8: working on')).toBe('Step 4/8: done.\n');
  });

  it('a paragraph-long unfinished line shows up to its last whole word', () => {
    const para = 'The migration guide covers the schema change, the new index and what to do when a ba';
    expect(para.length).toBeGreaterThan(80);
    expect(settledText(`Intro.\n${para}`)).toBe(
      'Intro.\nThe migration guide covers the schema change, the new index and what to do when a …',
    );
  });

  it('thinking that is done (the answer started) shows whole', () => {
    expect(settledText('Planning 4 steps for: notes', true)).toBe('Planning 4 steps for: notes');
  });
});
