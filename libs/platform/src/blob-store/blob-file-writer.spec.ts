import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobFileWriter } from './blob-file-writer';

describe('BlobFileWriter', () => {
  let root: string;
  let writer: BlobFileWriter;
  const write = (target: string, data: Buffer) => ({ target, tmp: `${target}.x.tmp`, data, fileMode: 0o600, directoryMode: 0o700 });

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'blob-writer-'));
    writer = new BlobFileWriter();
  });
  afterEach(async () => {
    await writer.close();
    await rm(root, { recursive: true, force: true });
  });

  it('writes through the pool while its thread starts, so that no write waits for the start', async () => {
    const fallback = jest.fn(async () => writeFile(join(root, 'early'), 'early'));
    await writer.write(write(join(root, 'early'), Buffer.from('early')), fallback);
    expect(fallback).toHaveBeenCalledTimes(1);
    expect(await writer.start()).toBe(true);
  });

  it('writes the file in its thread, creating its directories, with owner-only modes, and leaves no temporary file', async () => {
    expect(await writer.start()).toBe(true);
    const target = join(root, 'a', 'b', 'blob');
    // a pooled Buffer: a view into a larger shared ArrayBuffer, of which only the view's bytes must land
    const data = Buffer.from('remembered content');
    const fallback = jest.fn(async () => undefined);
    await writer.write(write(target, data), fallback);
    expect(fallback).not.toHaveBeenCalled();
    expect(await readFile(target, 'utf8')).toBe('remembered content');
    expect((await stat(target)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, 'a', 'b'))).mode & 0o777).toBe(0o700);
    await expect(stat(`${target}.x.tmp`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("rejects a failed write with the system's code, and writes the next one", async () => {
    expect(await writer.start()).toBe(true);
    await writeFile(join(root, 'file'), 'not a directory');
    const fallback = jest.fn(async () => undefined);
    await expect(writer.write(write(join(root, 'file', 'blob'), Buffer.from('x')), fallback)).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTDIR|EEXIST)$/) });
    expect(fallback).not.toHaveBeenCalled();
    await writer.write(write(join(root, 'ok'), Buffer.from('y')), fallback);
    expect(await readFile(join(root, 'ok'), 'utf8')).toBe('y');
    expect(writer.available).toBe(true);
  });

  it('finishes a write in flight when its thread is ended, through the fallback if the thread did not answer', async () => {
    expect(await writer.start()).toBe(true);
    const target = join(root, 'late');
    let fellBack = false;
    const pending = writer.write(write(target, Buffer.from('z')), async () => {
      fellBack = true;
      await writeFile(target, 'z');
    });
    await writer.close();
    await pending;
    expect(await readFile(target, 'utf8')).toBe('z');
    // done by the thread or, if it was ended first, by the fallback; the next write starts a new thread
    void fellBack;
    expect(await writer.start()).toBe(true);
    await writer.write(write(join(root, 'again'), Buffer.from('w')), async () => undefined);
    expect(await readFile(join(root, 'again'), 'utf8')).toBe('w');
  });
});
