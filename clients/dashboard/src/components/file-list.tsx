import { useEffect, useRef, useState } from 'react';
import type { FileContent, FileInfo } from '@agent-memory/client';
import { useSession } from '../session';
import { errorMessage } from '../api';
import { formatBytes, formatDate } from './record-format';
import { ScrollRegion } from './scroll-region';

/** Files per page of `GET /records/{recordId}/files` (docs/api.md, "Files"; 1–1,000). */
const FILES_PAGE = 100;

/**
 * A record's files: the free listing (`GET /records/{recordId}/files`, cursor pages, "Load more") with path,
 * size, content hash and dates; "Open" reads one (`GET /records/{recordId}/read`, a paid read charged to the
 * agent) and shows its content as text in a `<pre>`.
 */
export function FileList({ recordId }: { recordId: string }) {
  const { client } = useSession();
  const [files, setFiles] = useState<FileInfo[] | undefined>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const [open, setOpen] = useState<FileContent | undefined>();
  const [reading, setReading] = useState<string | undefined>();
  const viewer = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    let current = true;
    client.files.page(recordId, { limit: FILES_PAGE }).then(
      (page) => {
        if (!current) return;
        setFiles(page.files);
        setCursor(page.nextCursor);
      },
      (e: unknown) => current && setError(errorMessage(e)),
    );
    return () => {
      current = false;
    };
  }, [client, recordId]);

  useEffect(() => {
    if (open) viewer.current?.focus();
  }, [open]);

  const loadMore = async () => {
    if (!cursor) return;
    setLoading(true);
    setError(undefined);
    try {
      const page = await client.files.page(recordId, { limit: FILES_PAGE, cursor });
      setFiles((known) => [...(known ?? []), ...page.files]);
      setCursor(page.nextCursor);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setLoading(false);
    }
  };

  const read = async (path: string) => {
    setReading(path);
    setError(undefined);
    try {
      setOpen(await client.files.read(recordId, path));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setReading(undefined);
    }
  };

  return (
    <section aria-labelledby="files-heading">
      <h2 id="files-heading">Files</h2>
      <p className="hint">Listing files is free; opening one is a paid read (0.05 USD), charged to the agent.</p>
      {error ? <p role="alert" className="error">{error}</p> : null}
      {files === undefined && !error ? <p role="status">Loading files…</p> : null}
      {files && files.length === 0 ? <p>No files.</p> : null}
      {files && files.length > 0 ? (
        <ScrollRegion label="Files (table)">
          <table className="files">
            <caption className="visually-hidden">Files of this record</caption>
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col">Size</th>
                <th scope="col">Content hash</th>
                <th scope="col">Created</th>
                <th scope="col">Updated</th>
                <th scope="col"><span className="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {files.map((file) => (
                <tr key={file.path}>
                  <td className="path">{file.path}</td>
                  <td>{formatBytes(file.size)}</td>
                  <td><code className="hash">{file.contentHash}</code></td>
                  <td>{formatDate(file.createdAt)}</td>
                  <td>{formatDate(file.updatedAt)}</td>
                  <td>
                    <button type="button" onClick={() => void read(file.path)} disabled={reading !== undefined} aria-label={`Open ${file.path} (paid read)`}>
                      {reading === file.path ? 'Opening…' : 'Open (paid)'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      ) : null}
      {cursor ? (
        <button type="button" onClick={() => void loadMore()} disabled={loading}>
          {loading ? 'Loading…' : 'Load more files'}
        </button>
      ) : null}
      {open ? (
        <div className="file-viewer">
          <h3 ref={viewer} tabIndex={-1}>
            File <span className="path">{open.path}</span>
          </h3>
          <pre className="content" aria-label="File content">{open.content}</pre>
          <button type="button" onClick={() => setOpen(undefined)}>Close file</button>
        </div>
      ) : null}
    </section>
  );
}
