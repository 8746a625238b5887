'use strict';
// cfngen's Lambda runtime client for Node.js handlers: the loop Lambda's own Node runtime runs.
// Load the handler module once, then forever: GET the next event from the Runtime API
// (AWS_LAMBDA_RUNTIME_API, a loopback emulation cfngen serves), call the handler with it and
// a Lambda context, POST its answer or its error. Written by hand because the official client
// (aws-lambda-ric) builds a native addon; this needs nothing but Node.
//   node --require preload.js harness.js MODULE_FILE EXPORT
const http = require('http');

const [host, port] = process.env.AWS_LAMBDA_RUNTIME_API.split(':');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const base = '/2018-06-01/runtime';

function call(method, path, body, headers) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host, port: Number(port), method, path: base + path, agent, headers: headers || {} },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    request.on('error', reject);
    request.end(body === undefined ? undefined : body);
  });
}

function errorBody(error) {
  const err = error instanceof Error ? error : new Error(String(error));
  return JSON.stringify({
    errorType: err.name || 'Error',
    errorMessage: err.message || String(err),
    stackTrace: String(err.stack || '').split('\n').slice(1).map((line) => line.trim()),
  });
}

function invoke(handler, event, context) {
  // A handler written with a callback (event, context, callback) rather than a promise.
  if (handler.length >= 3) {
    return new Promise((resolve, reject) => {
      const done = (err, value) => (err ? reject(err) : resolve(value));
      const returned = handler(event, context, done);
      if (returned && typeof returned.then === 'function') returned.then(resolve, reject);
    });
  }
  return Promise.resolve().then(() => handler(event, context));
}

async function main() {
  const [file, name] = process.argv.slice(2);
  let handler;
  try {
    const loaded = require(file);
    handler = loaded[name];
    if (typeof handler !== 'function') {
      throw new TypeError(`${file} exports no function named ${name}`);
    }
  } catch (err) {
    await call('POST', '/init/error', errorBody(err), {
      'Lambda-Runtime-Function-Error-Type': 'Runtime.ImportModuleError',
    });
    process.exit(1);
  }
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME || 'cfngen-handler';
  for (;;) {
    const next = await call('GET', '/invocation/next');
    const id = next.headers['lambda-runtime-aws-request-id'];
    const deadline = Number(next.headers['lambda-runtime-deadline-ms']);
    const context = {
      awsRequestId: id,
      functionName,
      functionVersion: '$LATEST',
      memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE || '512',
      invokedFunctionArn: next.headers['lambda-runtime-invoked-function-arn'],
      logGroupName: `/aws/lambda/${functionName}`,
      logStreamName: 'cfngen',
      callbackWaitsForEmptyEventLoop: true,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    };
    let answer;
    // Lambda keeps the runtime up while a handler runs: a promise that never settles is a
    // timeout (the limit stops it), not a process that ends with nothing left to do.
    const alive = setInterval(() => {}, 1 << 30);
    try {
      const result = await invoke(handler, JSON.parse(next.body), context);
      answer = call('POST', `/invocation/${id}/response`, JSON.stringify(result ?? null));
    } catch (err) {
      answer = call('POST', `/invocation/${id}/error`, errorBody(err), {
        'Lambda-Runtime-Function-Error-Type': 'Runtime.UnhandledPromiseRejection',
      });
    }
    clearInterval(alive);
    await answer;
  }
}

main().catch((err) => {
  process.stderr.write(`cfngen runtime client: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
