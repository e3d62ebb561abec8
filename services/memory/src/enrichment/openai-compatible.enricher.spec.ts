import { freePort, type JsonStubServer, sendJson, startJsonStubServer } from '@agent-memory/testing';
import { ENRICHMENT_INSTRUCTION, OpenAiCompatibleEnricher, parseEnrichmentReply } from './openai-compatible.enricher';

interface ChatBody {
  model: string;
  temperature: number;
  messages: { role: string; content: string }[];
}

/** A real HTTP server on 127.0.0.1:0 standing in for the LLM endpoint; each test sets `handler`. */
describe('OpenAiCompatibleEnricher', () => {
  let stub: JsonStubServer<ChatBody>;
  let baseUrl: string;

  beforeAll(async () => {
    stub = await startJsonStubServer();
    baseUrl = stub.baseUrl;
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.requests.length = 0;
  });
  /** An OpenAI chat-completions response whose assistant message is `content`. */
  const completion = (content: string | null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
  });

  it('sends the instruction and content, and returns a valid type and summary', async () => {
    stub.handler = (_body, _req, res) => sendJson(res, 200, completion('{"type":"relationship","summary":"Bob is the user\'s brother; he lives in Porto."}'));
    const enricher = new OpenAiCompatibleEnricher({ baseUrl, model: 'small-llm', apiKey: 'secret' });
    const result = await enricher.enrich('Bob is my brother and he lives in Porto.');
    expect(result).toEqual({ type: 'relationship', summary: "Bob is the user's brother; he lives in Porto." });
    expect(enricher.id).toBe('openai-chat:small-llm');
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]).toEqual({
      url: '/v1/chat/completions',
      auth: 'Bearer secret',
      body: {
        model: 'small-llm',
        temperature: 0,
        messages: [
          { role: 'system', content: ENRICHMENT_INSTRUCTION },
          { role: 'user', content: 'Bob is my brother and he lives in Porto.' },
        ],
      },
    });
  });

  it('accepts a reply inside a ```json fence, and a reply with only one field', async () => {
    stub.handler = (_body, _req, res) => sendJson(res, 200, completion('```json\n{"type": "skill"}\n```'));
    expect(await new OpenAiCompatibleEnricher({ baseUrl, model: 'm' }).enrich('How to deploy')).toEqual({ type: 'skill' });
    expect(stub.requests[0].auth).toBeUndefined();
  });

  it('ignores a reply that is not JSON, or JSON of the wrong shape, or an unknown type', async () => {
    const enricher = new OpenAiCompatibleEnricher({ baseUrl, model: 'm' });
    for (const content of [
      'Sure! The type is fact.',
      '{"type": "fact", "summary": ',
      '{"type": "preference", "summary": "Likes tea."}',
      '{"type": "fact", "summary": 42}',
      '["fact"]',
      '',
      null,
    ]) {
      stub.handler = (_body, _req, res) => sendJson(res, 200, completion(content));
      await expect(enricher.enrich('I like tea.')).resolves.toEqual({});
    }
  });

  it('cuts an over-long summary at a word and drops an empty one', async () => {
    const long = 'word '.repeat(100);
    stub.handler = (_body, _req, res) => sendJson(res, 200, completion(JSON.stringify({ type: 'fact', summary: long })));
    const { summary } = await new OpenAiCompatibleEnricher({ baseUrl, model: 'm' }).enrich('x');
    expect(summary!.length).toBeLessThanOrEqual(280);
    expect(summary!.endsWith('…')).toBe(true);
    expect(parseEnrichmentReply('{"type":"episode","summary":"   "}')).toEqual({ type: 'episode' });
  });

  it('parses fenced and hostile replies in linear time', () => {
    expect(parseEnrichmentReply('```json\n{"type":"skill"}\n```')).toEqual({ type: 'skill' });
    expect(parseEnrichmentReply('  ```JSON {"type":"fact"} ```  ')).toEqual({ type: 'fact' });
    expect(parseEnrichmentReply('```{"type":"episode"}```')).toEqual({ type: 'episode' });
    expect(parseEnrichmentReply('```')).toEqual({});
    // A fence followed by a long whitespace run: the former pattern took ~2 s for 2,000 tabs (cubic).
    expect(parseEnrichmentReply(`\`\`\`${'\t'.repeat(20_000)}`)).toEqual({});
    expect(parseEnrichmentReply(`\`\`\`json${' \n'.repeat(20_000)}{"type":"identity"}${'\n'.repeat(20_000)}\`\`\``)).toEqual({ type: 'identity' });
  });

  it('sends at most maxContentChars of the content', async () => {
    stub.handler = (_body, _req, res) => sendJson(res, 200, completion('{}'));
    await new OpenAiCompatibleEnricher({ baseUrl, model: 'm', maxContentChars: 10 }).enrich('0123456789abcdef');
    expect(stub.requests[0].body.messages[1].content).toBe('0123456789');
  });

  it('throws on a timeout, naming the URL and the limit', async () => {
    stub.handler = () => undefined; // never answers
    const enricher = new OpenAiCompatibleEnricher({ baseUrl, model: 'm', timeoutMs: 200 });
    const started = Date.now();
    await expect(enricher.enrich('x')).rejects.toThrow(/chat\/completions timed out after 200 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('throws on a non-2xx status or a body that is not a chat completion, without the API key', async () => {
    const enricher = new OpenAiCompatibleEnricher({ baseUrl, model: 'm', apiKey: 'secret-key' });
    stub.handler = (_body, _req, res) => sendJson(res, 503, { error: { message: 'overloaded' } });
    await expect(enricher.enrich('x')).rejects.toThrow(/HTTP 503.*overloaded/);
    stub.handler = (_body, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>not an API</html>');
    };
    await expect(enricher.enrich('x')).rejects.toThrow(/is not JSON/);
    stub.handler = (_body, _req, res) => sendJson(res, 200, { data: [] });
    const error = await enricher.enrich('x').catch((e: Error) => e);
    expect((error as Error).message).toMatch(/is not a chat completion/);
    expect((error as Error).message).not.toContain('secret-key');
  });

  it('throws when nothing listens at the URL', async () => {
    const port = await freePort(); // nothing listens there
    await expect(new OpenAiCompatibleEnricher({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' }).enrich('x')).rejects.toThrow(/failed/);
  });
});
