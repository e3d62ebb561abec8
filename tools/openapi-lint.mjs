#!/usr/bin/env node
/**
 * Lints an OpenAPI document (a file path or an http(s) URL, e.g. http://127.0.0.1:8080/openapi.json) with
 * two well-kept tools: Redocly's linter with its `recommended` rules, and swagger-parser's validator
 * (OpenAPI schema and references). Prints one JSON object: `{ redocly: [{ severity, ruleId, message,
 * pointer }], swaggerParser: 'valid' | '<error message>' }`; exit code 1 when either finds an error.
 * An ES module script because both libraries ship as ES modules (the Jest suites run it as a child:
 * test/e2e/openapi/openapi-contract.e2e-spec.ts). docs/api.md, "The OpenAPI contract".
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';

const input = process.argv[2];
if (!input) {
  process.stderr.write('usage: node tools/openapi-lint.mjs <openapi.json file or URL>\n');
  process.exit(2);
}
const source = /^https?:\/\//.test(input) ? await (await fetch(input)).text() : await readFile(input, 'utf8');
const config = await createConfig({ extends: ['recommended'] });
const problems = await lintFromString({ source, absoluteRef: /^https?:\/\//.test(input) ? input : resolve(input), config });
const redocly = problems.map((p) => ({ severity: p.severity, ruleId: p.ruleId, message: p.message, pointer: p.location[0]?.pointer }));
let swaggerParser = 'valid';
try {
  await SwaggerParser.validate(JSON.parse(source));
} catch (err) {
  swaggerParser = String(err?.message ?? err);
}
process.stdout.write(`${JSON.stringify({ redocly, swaggerParser }, null, 2)}\n`);
process.exit(redocly.some((p) => p.severity === 'error') || swaggerParser !== 'valid' ? 1 : 0);
