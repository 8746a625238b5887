'use strict';
// Loaded by `node --require` before the handler (cfngen/_languages/_typescript.py), two jobs.
//
// 1. Offline means offline: unless CFNGEN_ALLOW_NETWORK=1, a connection to anything but loopback
//    and a name lookup of anything but a loopback name fail at once, naming the host, before a
//    socket is made (net.Socket#connect, which http, https, tls, http2 and fetch all use; dns;
//    dgram). cfngen's tests prove it with a connection trace.
// 2. The AWS SDK for JavaScript v2 (the TypeScript plugin's library uses it) ignores
//    AWS_ENDPOINT_URL: when its core module loads, its global configuration gets the endpoint
//    of CFNGEN_AWS_ENDPOINT, so every client made afterwards, the library's included, calls it.
//    v3 reads AWS_ENDPOINT_URL itself.
const net = require('net');
const dns = require('dns');
const dgram = require('dgram');
const Module = require('module');

function loopback(host) {
  if (host === undefined || host === null || host === '') return true; // Node's default: localhost
  const name = String(host).toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(name) ||
    name === '::1' ||
    name === '0:0:0:0:0:0:0:1' ||
    /^::ffff:127\.\d+\.\d+\.\d+$/.test(name)
  );
}

function refused(host, what) {
  const err = new Error(
    `cfngen: ${what} ${host} refused: handlers run offline, only loopback is reachable ` +
      '(cfngen test --allow-network lets them out)',
  );
  err.code = 'ECONNREFUSED';
  return err;
}

if (process.env.CFNGEN_ALLOW_NETWORK !== '1') {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    let options = args[0];
    if (Array.isArray(options)) options = options[0]; // net.connect's normalised arguments
    else if (options === null || typeof options !== 'object') {
      options = typeof options === 'string' && !/^\d+$/.test(options)
        ? { path: options }
        : { port: options, host: typeof args[1] === 'string' ? args[1] : undefined };
    }
    if (!options.path && !loopback(options.host)) {
      const err = refused(options.host, 'connection to');
      process.nextTick(() => this.destroy(err));
      return this;
    }
    return connect.apply(this, args);
  };

  const guardLookup = (lookup) =>
    function guardedLookup(hostname, options, callback) {
      if (loopback(hostname)) return lookup.apply(this, arguments);
      const done = typeof options === 'function' ? options : callback;
      process.nextTick(() => done(refused(hostname, 'name lookup of')));
      return {};
    };
  dns.lookup = guardLookup(dns.lookup);
  const promiseLookup = dns.promises.lookup;
  dns.promises.lookup = function guardedPromiseLookup(hostname) {
    if (loopback(hostname)) return promiseLookup.apply(this, arguments);
    return Promise.reject(refused(hostname, 'name lookup of'));
  };
  // The resolver functions ask a DNS server over UDP themselves (c-ares): refuse them all.
  const refuseResolve = (target, key, promised) => {
    if (typeof target[key] !== 'function' || !/^(resolve|reverse)/.test(key)) return;
    target[key] = function refusedResolve(hostname) {
      const err = refused(hostname, 'DNS query for');
      if (promised) return Promise.reject(err);
      const done = arguments[arguments.length - 1];
      if (typeof done === 'function') process.nextTick(() => done(err));
      return undefined;
    };
  };
  for (const key of Object.keys(dns)) refuseResolve(dns, key, false);
  for (const key of Object.getOwnPropertyNames(dns.Resolver.prototype)) {
    refuseResolve(dns.Resolver.prototype, key, false);
  }
  for (const key of Object.keys(dns.promises)) refuseResolve(dns.promises, key, true);
  for (const key of Object.getOwnPropertyNames(dns.promises.Resolver.prototype)) {
    refuseResolve(dns.promises.Resolver.prototype, key, true);
  }
  const send = dgram.Socket.prototype.send;
  dgram.Socket.prototype.send = function guardedSend(...args) {
    const address = args.find((arg, i) => i > 0 && typeof arg === 'string');
    if (address !== undefined && !loopback(address)) throw refused(address, 'datagram to');
    return send.apply(this, args);
  };
  const udpConnect = dgram.Socket.prototype.connect;
  dgram.Socket.prototype.connect = function guardedUdpConnect(port, address, callback) {
    if (typeof address === 'string' && !loopback(address)) throw refused(address, 'datagram to');
    return udpConnect.apply(this, arguments);
  };
}

const endpoint = process.env.CFNGEN_AWS_ENDPOINT;
if (endpoint) {
  const load = Module._load;
  const pointed = new WeakSet();
  Module._load = function loadPointingAwsSdk(request) {
    const exported = load.apply(this, arguments);
    // aws-sdk/lib/core.js: the one object with the global Config and the Service base class.
    if (
      /(^|\/)core$|^aws-sdk(\/global)?$/.test(request) &&
      exported &&
      typeof exported.Service === 'function' &&
      exported.config &&
      typeof exported.config.update === 'function' &&
      !pointed.has(exported)
    ) {
      pointed.add(exported);
      // Path-style S3 addressing: bucket.127.0.0.1 names no host.
      exported.config.update({ endpoint, s3ForcePathStyle: true });
    }
    return exported;
  };
}

// 3. The TypeScript plugin's library sleeps a second after every call (`await delay(1)` in
//    waitRunningProcesses) so that its log publishers can finish: CloudWatch and S3 log delivery,
//    which exist only when CloudFormation sends providerCredentials and a providerLogGroupName.
//    cfngen never sends them, so there is nothing to wait for, and its delays are skipped: a
//    suite of fifty calls would otherwise sleep fifty seconds.
if (process.env.CFNGEN_KEEP_LIBRARY_DELAYS !== '1') {
  const load = Module._load;
  Module._load = function loadWithoutLibraryDelays(request, parent) {
    const exported = load.apply(this, arguments);
    if (
      request === './utils' &&
      parent &&
      /cloudformation-cli-typescript-lib/.test(String(parent.filename)) &&
      exported &&
      typeof exported.delay === 'function' &&
      typeof exported.ProgressTracker === 'function' &&
      !exported.delay.cfngen
    ) {
      const skipped = () => Promise.resolve();
      skipped.cfngen = true;
      exported.delay = skipped;
    }
    return exported;
  };
}
