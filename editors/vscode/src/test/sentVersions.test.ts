import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SentVersions } from '../sentVersions';

const uri = 'file:///w/a.py';

test('a request waits for its version to be sent', async () => {
  const sent = new SentVersions();
  sent.opened(uri, 1);
  let resolved = false;
  const waiting = sent.whenSent(uri, 3, 10_000).then(() => { resolved = true; });
  sent.changed(uri, 2);
  await Promise.resolve();
  assert.equal(resolved, false);
  sent.changed(uri, 3);
  await waiting;
  assert.equal(resolved, true);
});

test('after a close and a reopen, an old version does not vouch for the new document', async () => {
  const sent = new SentVersions();
  sent.opened(uri, 1);
  sent.changed(uri, 57);
  sent.closed(uri);
  sent.opened(uri, 1); // VS Code starts a reopened document's versions again
  assert.equal(sent.has(uri, 2), false, 'version 2 of the reopened document has not been sent');
  let resolved = false;
  const waiting = sent.whenSent(uri, 2, 10_000).then(() => { resolved = true; });
  await Promise.resolve();
  assert.equal(resolved, false);
  sent.changed(uri, 2);
  await waiting;
});

test('whenSent gives up after its timeout rather than hang', async () => {
  const sent = new SentVersions();
  await sent.whenSent(uri, 9, 5);
});
