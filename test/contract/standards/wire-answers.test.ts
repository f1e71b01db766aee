/** wireAnswers: the interim and final answers a connection's bytes hold, each ended as RFC 9112 §6.3 says. */
import { describe, expect, it } from 'vitest';
import { wireAnswers } from '../../../contract/standards/wire-answers.ts';

const b = (text: string) => Buffer.from(text, 'latin1');

describe('wireAnswers', () => {
  it('ends an answer by its Content-Length, and reads a second one after it', () => {
    const a = wireAnswers(
      b('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}HTTP/1.1 400 Bad\r\nContent-Length: 0\r\n\r\n'),
      'GET',
      false,
    );
    expect(a.finals.map((f) => f.status)).toEqual([200, 400]);
    expect(a.partial).toBe(false);
  });

  it('skips interim answers into their own list, and ends a chunked body after its trailer section', () => {
    const bytes = b(
      'HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\nHTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n' +
        '2\r\n{}\r\n0\r\nserver-timing: a\r\n\r\n',
    );
    const a = wireAnswers(bytes, 'GET', false);
    expect(a.interim.map((h) => h.status)).toEqual([103]);
    expect(a.finals[0]!.fields).toContainEqual(['transfer-encoding', 'chunked']);
    expect(a.partial).toBe(false);
  });

  it('is partial while a body is short, whole at the close when only the close ends it', () => {
    expect(wireAnswers(b('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n{}'), 'GET', false)).toMatchObject({
      finals: [],
      partial: true,
    });
    expect(wireAnswers(b('HTTP/1.0 200 OK\r\n\r\n{}'), 'GET', false).finals).toHaveLength(0);
    expect(wireAnswers(b('HTTP/1.0 200 OK\r\n\r\n{}'), 'GET', true).finals).toHaveLength(1);
  });

  it('reads no content after a HEAD, a 204 or a 304', () => {
    expect(wireAnswers(b('HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\n'), 'HEAD', false).finals).toHaveLength(1);
    expect(wireAnswers(b('HTTP/1.1 204 No Content\r\n\r\n'), 'DELETE', false).finals).toHaveLength(1);
  });

  it('stops at bytes that are no status line', () => {
    expect(wireAnswers(b('garbage\r\n\r\n'), 'GET', true)).toMatchObject({ finals: [], partial: true });
  });
});
