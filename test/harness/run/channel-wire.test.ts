/**
 * The run channel's wire (harness/run/channel-wire.ts): a frame is one line of JSON, lines are
 * reassembled from chunks cut anywhere, and the endpoint leaves no file behind where it can.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { channelEndpoint, frame, lineSplitter } from '../../../harness/run/channel-wire.ts';

describe('the run channel wire', () => {
  it('writes a frame as one line, even when a value holds newlines', () => {
    const line = frame({ id: 7, value: { text: 'two\nlines' } });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ id: 7, value: { text: 'two\nlines' } });
  });

  it('reassembles the lines of a stream cut at any byte', () => {
    const frames = [frame({ id: 1, path: '/a', body: {} }), frame({ cancel: 1 }), frame({ id: 2, value: 'ü' })];
    const stream = frames.join('');
    for (let cut = 0; cut <= stream.length; cut += 1) {
      const lines: string[] = [];
      const feed = lineSplitter((line) => lines.push(line));
      feed(stream.slice(0, cut));
      feed(stream.slice(cut));
      expect(lines).toEqual(frames.map((f) => f.slice(0, -1)));
    }
  });

  it('listens in the abstract namespace on Linux, on a named pipe on Windows, else in a private folder', () => {
    expect(channelEndpoint('linux').path).toMatch(/^\0occ-run-[0-9a-f]{24}$/);
    expect(channelEndpoint('win32').path).toMatch(/^\\\\\.\\pipe\\occ-run-[0-9a-f]{24}$/);
    const elsewhere = channelEndpoint('darwin');
    expect(existsSync(dirname(elsewhere.path))).toBe(true);
    elsewhere.remove();
    expect(existsSync(dirname(elsewhere.path))).toBe(false);
  });
});
