import type { FastifyRequest } from 'fastify';

import { describeCut, InFlightRequests } from './in-flight';

const request = (id: string) => ({ id, method: 'GET', url: `/api/v1/tasks/${id}?x=1` }) as unknown as FastifyRequest;
const ids = (requests: InFlightRequests) => [...requests].map((r) => r.id);

describe('InFlightRequests', () => {
  it('lists requests oldest first and takes out any of them', () => {
    const requests = new InFlightRequests();
    const entries = ['1', '2', '3', '4'].map((id) => requests.add(request(id)));
    expect(ids(requests)).toEqual(['1', '2', '3', '4']);
    requests.delete(entries[1]);
    expect(ids(requests)).toEqual(['1', '3', '4']);
    requests.delete(entries[0]);
    expect(ids(requests)).toEqual(['3', '4']);
    requests.delete(entries[3]);
    expect(ids(requests)).toEqual(['3']);
    requests.add(request('5'));
    expect(ids(requests)).toEqual(['3', '5']);
    requests.delete(entries[2]);
    expect(ids(requests)).toEqual(['5']);
  });

  it('ignores a second delete of the same entry (answered, then its connection closed)', () => {
    const requests = new InFlightRequests();
    const first = requests.add(request('1'));
    const second = requests.add(request('2'));
    requests.delete(first);
    requests.delete(first);
    expect(ids(requests)).toEqual(['2']);
    requests.delete(second);
    requests.delete(second);
    expect(ids(requests)).toEqual([]);
    requests.add(request('3'));
    expect(ids(requests)).toEqual(['3']);
  });

  it("lets go of a deleted entry's neighbours", () => {
    const requests = new InFlightRequests();
    requests.add(request('1'));
    const middle = requests.add(request('2'));
    requests.add(request('3'));
    requests.delete(middle);
    expect(middle.previous).toBeUndefined();
    expect(middle.next).toBeUndefined();
  });
});

describe('describeCut', () => {
  it('names at most ten requests', () => {
    const names = Array.from({ length: 12 }, (_, i) => `GET /api/v1/me #${i}`);
    expect(describeCut(names, 10_000)).toBe(`Shutdown: 12 requests still in flight after 10 s, cut: ${names.slice(0, 10).join(', ')}, and 2 more`);
    expect(describeCut([], 2_500)).toBe('Shutdown: 0 requests still in flight after 2.5 s, cut');
  });
});
