// Where the transcript's view stands: it follows the end while the person is scrolled to it (new
// rows, the live step growing token by token), keeps its place when older messages load above,
// and brings a message a search result asked for into view. `stickRef` is the one shared fact:
// true while the view is at the end (the scroll handler keeps it current).
import { useEffect, useRef, type RefObject } from 'react';
import type { Virtualizer } from '@tanstack/react-virtual';
import { useTranscript } from '../../stores/transcript';
import { useUi } from '../../stores/ui';
import { buildRows, rowKey, type Row } from './TranscriptRows';

type View = Virtualizer<HTMLDivElement, Element>;

/** Follows the end while the view is at it; returns the flag the scroll handler keeps. */
export function useFollowEnd(
  virtualizer: View,
  rows: Row[],
  liveChars: number,
  scrollRef: RefObject<HTMLDivElement | null>,
): RefObject<boolean> {
  const sessionKey = useTranscript((s) => s.key);
  const stickRef = useRef(true);
  const last = rows.length ? rowKey(rows[rows.length - 1]!) : undefined;

  useEffect(() => {
    stickRef.current = true;
  }, [sessionKey]);

  // A new row scrolls to it.
  useEffect(() => {
    if (last !== undefined && stickRef.current) {
      virtualizer.scrollToIndex(rows.length - 1, { align: 'end' });
    }
  }, [last, rows.length, virtualizer]);

  // …and the live step growing (token by token) keeps the end in view: at most one layout read a
  // frame, not a virtualizer scroll per token (that forced a layout each time).
  const follow = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!liveChars || !stickRef.current || follow.current !== undefined) return;
    follow.current = requestAnimationFrame(() => {
      follow.current = undefined;
      const el = scrollRef.current;
      if (el && stickRef.current) el.scrollTop = el.scrollHeight;
    });
  }, [liveChars, scrollRef]);
  useEffect(() => () => cancelAnimationFrame(follow.current ?? 0), []);
  return stickRef;
}

/** A search result asked for this message: load older pages until it is there, then show it once. */
export function useShowFocused(virtualizer: View, rows: Row[], stickRef: RefObject<boolean>): void {
  const messages = useTranscript((s) => s.messages);
  const sessionKey = useTranscript((s) => s.key);
  const hasMore = useTranscript((s) => s.hasMore);
  const loading = useTranscript((s) => s.loading);
  const loadOlder = useTranscript((s) => s.loadOlder);
  const focusedId = useUi((s) => s.focusedMessageId);
  const selectedKey = useUi((s) => s.selectedKey);
  const broughtIntoView = useRef<number | null>(null);
  useEffect(() => {
    if (focusedId === null || sessionKey !== selectedKey || loading) return;
    const index = rows.findIndex((r) => r.type === 'message' && r.m.id === focusedId);
    if (index >= 0) {
      if (broughtIntoView.current === focusedId) return;
      broughtIntoView.current = focusedId;
      stickRef.current = false;
      requestAnimationFrame(() => virtualizer.scrollToIndex(index, { align: 'center' }));
    } else if (hasMore && (messages[0]?.id ?? 0) > focusedId) {
      void loadOlder();
    }
  }, [
    focusedId,
    sessionKey,
    selectedKey,
    loading,
    messages,
    rows,
    hasMore,
    loadOlder,
    virtualizer,
    stickRef,
  ]);
}

/** Loads the page before the first message; the first row in view (not the overscan above it) stays in place. */
export function useLoadOlder(
  virtualizer: View,
  rows: Row[],
  stickRef: RefObject<boolean>,
): () => Promise<void> {
  const loadOlder = useTranscript((s) => s.loadOlder);
  return async () => {
    const first = rows[virtualizer.range?.startIndex ?? 0];
    const anchor = first ? rowKey(first) : undefined;
    stickRef.current = false;
    await loadOlder();
    const { messages: m, notices: n } = useTranscript.getState();
    const index = buildRows(m, n, undefined).findIndex((r) => rowKey(r) === anchor);
    if (index >= 0) requestAnimationFrame(() => virtualizer.scrollToIndex(index, { align: 'start' }));
  };
}
