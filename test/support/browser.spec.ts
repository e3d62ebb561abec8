import { join } from 'node:path';

/**
 * Where the browser tests write their screenshots (docs/dashboard.md, "Tests"): tmp/screenshots/ on an
 * ordinary run, so that a test run leaves the tracked docs/screenshots/ alone; docs/screenshots/ only with
 * UPDATE_SCREENSHOTS=1.
 */
const ROOT = join(__dirname, '..', '..');

function screenshotDirWith(update: string | undefined): string {
  const saved = process.env.UPDATE_SCREENSHOTS;
  if (update === undefined) delete process.env.UPDATE_SCREENSHOTS;
  else process.env.UPDATE_SCREENSHOTS = update;
  try {
    let dir = '';
    jest.isolateModules(() => {
      dir = jest.requireActual<{ SCREENSHOT_DIR: string }>('./browser').SCREENSHOT_DIR;
    });
    return dir;
  } finally {
    if (saved === undefined) delete process.env.UPDATE_SCREENSHOTS;
    else process.env.UPDATE_SCREENSHOTS = saved;
  }
}

it('writes screenshots into tmp/screenshots/, and into docs/screenshots/ only with UPDATE_SCREENSHOTS=1', () => {
  expect(screenshotDirWith(undefined)).toBe(join(ROOT, 'tmp', 'screenshots'));
  expect(screenshotDirWith('0')).toBe(join(ROOT, 'tmp', 'screenshots'));
  expect(screenshotDirWith('1')).toBe(join(ROOT, 'docs', 'screenshots'));
});
