// host.js: the JavaScript (Node.js 18+) solution host of tether
// (docs/languages.md, "JavaScript").
//
//     node host.js main.js     (CommonJS: module.exports = { add })
//     node host.js main.mjs    (ES module: export function add)
//     node host.js --check SPEC main.js   (declared functions: see check)
//
// Serves the evaluator's calls by function name over the judge protocol
// (docs/protocol/judge.md), like the Python host: `ready` first, calls run
// one at a time in arrival order (an async function is awaited), answers
// `result` or `error` (NotFound, Rejected, Exception with the error's class:
// `TypeError: ...`). Integers beyond 2^53 arrive as BigInt, bytes as
// Uint8Array; JavaScript has one number type, so a float with an integral
// value (1.0) is sent back as an integer.
//
// process.stdout / process.stderr (console.log, console.error) become log
// frames, sent before the answer of the call that wrote them. A solution
// calls a capability with `await tether.callCapability(name, ...args)`
// (the global `tether`); it rejects with tether.CapabilityError (`code` is
// the wire code).
'use strict';

const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');

const MAX_FRAME = 1 << 20;
const MAX_LINE = 4 << 20;
const MAX_DEPTH = 512;
const MAX_INT_DIGITS = 4300;
const MAX_LOG_CHUNK = 64 * 1024;
const SAFE = 2n ** 53n;

// ------------------------------------------------------------------ codec

class Rejected extends Error {}
class Syntax extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Lossy = new TextDecoder('utf-8');

// Parses one JSON text the codec's way. Syntax errors throw Syntax; a codec
// error (NaN, duplicate key, bad base64, too deep, ...) is kept in
// p.codecError while parsing goes on, so a frame's type and id can still
// be read (the Python host answers such a call Rejected).
class Parser {
  constructor(text) {
    this.s = text;
    this.i = 0;
    this.codecError = null;
  }
  codec(why) {
    if (this.codecError === null) this.codecError = why;
  }
  fail() {
    throw new Syntax('invalid JSON at offset ' + this.i);
  }
  ws() {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
    this.i = i;
  }
  lit(word, value) {
    if (this.s.startsWith(word, this.i)) {
      this.i += word.length;
      return value;
    }
    this.fail();
  }
  value(depth) {
    this.ws();
    const c = this.s[this.i];
    switch (c) {
      case '{':
        return this.object(depth + 1);
      case '[':
        return this.array(depth + 1);
      case '"':
        return this.string();
      case 't':
        return this.lit('true', true);
      case 'f':
        return this.lit('false', false);
      case 'n':
        return this.lit('null', null);
      case 'N':
        this.lit('NaN', 0);
        this.codec('NaN is not transferable');
        return NaN;
      case 'I':
        this.lit('Infinity', 0);
        this.codec('Infinity is not transferable');
        return Infinity;
      default:
        return this.number();
    }
  }
  number() {
    const s = this.s;
    const start = this.i;
    let i = start;
    if (s[i] === '-') i++;
    if (s[i] === 'I') {
      this.i = i;
      this.lit('Infinity', 0);
      this.codec('-Infinity is not transferable');
      return -Infinity;
    }
    const digit = (k) => s.charCodeAt(k) >= 48 && s.charCodeAt(k) <= 57;
    if (!digit(i)) {
      this.i = i;
      this.fail();
    }
    if (s[i] === '0') i++;
    else while (digit(i)) i++;
    let integer = true;
    if (s[i] === '.') {
      integer = false;
      i++;
      if (!digit(i)) {
        this.i = i;
        this.fail();
      }
      while (digit(i)) i++;
    }
    if (s[i] === 'e' || s[i] === 'E') {
      integer = false;
      i++;
      if (s[i] === '+' || s[i] === '-') i++;
      if (!digit(i)) {
        this.i = i;
        this.fail();
      }
      while (digit(i)) i++;
    }
    this.i = i;
    const text = s.slice(start, i);
    if (integer) {
      const digits = text.length - (text[0] === '-' ? 1 : 0);
      if (digits > MAX_INT_DIGITS) {
        this.codec('integer has ' + digits + ' digits, more than ' + MAX_INT_DIGITS);
        return 0;
      }
      if (digits < 16) return text === '-0' ? 0 : Number(text);
      const big = BigInt(text);
      return big < SAFE && big > -SAFE ? Number(big) : big;
    }
    const d = Number(text);
    if (!Number.isFinite(d)) this.codec('number ' + text.slice(0, 40) + ' overflows a float: not transferable');
    return d;
  }
  string() {
    const s = this.s;
    let i = this.i + 1;
    let out = '';
    let run = i;
    for (;;) {
      if (i >= s.length) {
        this.i = i;
        this.fail();
      }
      const c = s.charCodeAt(i);
      if (c === 34) {
        out += s.slice(run, i);
        this.i = i + 1;
        return out;
      }
      if (c < 32) {
        this.i = i;
        this.fail();
      }
      if (c !== 92) {
        i++;
        continue;
      }
      out += s.slice(run, i);
      const e = s[i + 1];
      i += 2;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = s.slice(i, i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            this.i = i;
            this.fail();
          }
          const cp = parseInt(hex, 16);
          i += 4;
          if (cp >= 0xd800 && cp < 0xdc00) {
            const lo = s.slice(i, i + 6);
            if (/^\\u[dD][c-fC-F][0-9a-fA-F]{2}$/.test(lo)) {
              out += String.fromCharCode(cp, parseInt(lo.slice(2), 16));
              i += 6;
              break;
            }
            this.codec('lone surrogate escape in a string');
            out += '\ufffd';
            break;
          }
          if (cp >= 0xdc00 && cp < 0xe000) {
            this.codec('lone surrogate escape in a string');
            out += '\ufffd';
            break;
          }
          out += String.fromCharCode(cp);
          break;
        }
        default:
          this.i = i - 1;
          this.fail();
      }
      run = i;
    }
  }
  skipDeep() {
    // Nesting beyond the limit: a codec error, and the value is skipped,
    // not parsed (no deep recursion).
    this.codec('nesting too deep (more than ' + MAX_DEPTH + ')');
    const s = this.s;
    let depth = 0;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === '"') {
        this.string();
        continue;
      }
      this.i++;
      if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') {
        if (--depth === 0) return null;
      }
    }
    this.fail();
  }
  // At a list's or map's opening bracket: consumes it and the white space
  // after it, and close too when it follows at once (the list or map is
  // empty).
  opensEmpty(close) {
    this.i++;
    this.ws();
    if (this.s[this.i] === close) {
      this.i++;
      return true;
    }
    return false;
  }
  array(depth) {
    if (depth > MAX_DEPTH) return this.skipDeep();
    const out = [];
    if (this.opensEmpty(']')) return out;
    for (;;) {
      out.push(this.value(depth));
      this.ws();
      const c = this.s[this.i++];
      if (c === ',') continue;
      if (c === ']') return out;
      this.i--;
      this.fail();
    }
  }
  object(depth) {
    if (depth > MAX_DEPTH) return this.skipDeep();
    const out = {};
    let count = 0;
    let onlyKey = null;
    if (this.opensEmpty('}')) return out;
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail();
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail();
      this.i++;
      const v = this.value(depth);
      if (Object.prototype.hasOwnProperty.call(out, key)) this.codec('duplicate key ' + JSON.stringify(key));
      setKey(out, key, v);
      count++;
      onlyKey = key;
      this.ws();
      const c = this.s[this.i++];
      if (c === ',') continue;
      if (c === '}') break;
      this.i--;
      this.fail();
    }
    if (count === 1 && onlyKey === '__bytes__' && typeof out.__bytes__ === 'string') {
      const b = decodeBase64(out.__bytes__);
      if (b === null) {
        this.codec('invalid base64 in __bytes__: ' + JSON.stringify(out.__bytes__.slice(0, 40)));
        return new Uint8Array(0);
      }
      return b;
    }
    return out;
  }
}

function setKey(obj, key, v) {
  if (key === '__proto__') Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[key] = v;
}

function decodeBase64(s) {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  const b = Buffer.from(s, 'base64');
  if (b.toString('base64') !== s) return null; // not canonical (trailing bits)
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

// Parses a whole text: {value, codecError}; throws Syntax.
function parseText(text) {
  const p = new Parser(text);
  const value = p.value(0);
  p.ws();
  if (p.i !== text.length) throw new Syntax('invalid JSON: trailing data at offset ' + p.i);
  return { value, codecError: p.codecError };
}

function quote(s) {
  // Canonical strings: UTF-8 kept, only '"', '\\' and control characters
  // escaped (JSON.stringify escapes exactly those, plus lone surrogates,
  // which encode() refuses first).
  return JSON.stringify(s);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function byCodePoint(a, b) {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function pyFloat(d) {
  // Python's repr(float): shortest digits, positional when the decimal
  // exponent x is in -4 <= x < 16, else d.ddde+XX.
  if (Object.is(d, -0)) return '-0.0';
  if (d === 0) return '0.0';
  const [mant, expText] = d.toExponential().split('e');
  const neg = mant[0] === '-';
  const digits = mant.replace('-', '').replace('.', '');
  const x = Number(expText);
  let out = neg ? '-' : '';
  if (x >= -4 && x < 16) {
    if (x < 0) return out + '0.' + '0'.repeat(-x - 1) + digits;
    if (x + 1 >= digits.length) return out + digits + '0'.repeat(x + 1 - digits.length) + '.0';
    return out + digits.slice(0, x + 1) + '.' + digits.slice(x + 1);
  }
  out += digits[0];
  if (digits.length > 1) out += '.' + digits.slice(1);
  const ax = Math.abs(x);
  return out + 'e' + (x < 0 ? '-' : '+') + (ax < 10 ? '0' : '') + ax;
}

function typeName(v) {
  if (v === undefined) return 'undefined';
  if (typeof v === 'function') return 'function';
  if (typeof v === 'symbol') return 'symbol';
  if (typeof v === 'object' && v !== null) return (v.constructor && v.constructor.name) || 'object';
  return typeof v;
}

function refuse(path, why) {
  throw new Rejected(path + ': ' + why);
}

// The canonical JSON text of v; Rejected naming the path otherwise.
function encode(v, path = 'value', depth = 0) {
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(v)) refuse(path, (Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity') + ' is not transferable');
      if (Number.isInteger(v) && Math.abs(v) < 2 ** 53 && !Object.is(v, -0)) return String(v);
      return pyFloat(v);
    case 'bigint': {
      const t = v.toString();
      if (t.length - (t[0] === '-' ? 1 : 0) > MAX_INT_DIGITS) refuse(path, 'integer has more than ' + MAX_INT_DIGITS + ' digits');
      return t;
    }
    case 'string':
      if (LONE_SURROGATE.test(v)) refuse(path, 'string is not valid UTF-8 (lone surrogate)');
      return quote(v);
    case 'undefined':
      return 'null';
    case 'object':
      break;
    default:
      refuse(path, typeName(v) + ' is not transferable');
  }
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return '{"__bytes__":"' + Buffer.from(v.buffer, v.byteOffset, v.length).toString('base64') + '"}';
  if (depth >= MAX_DEPTH) refuse(path, 'nesting too deep (more than ' + MAX_DEPTH + ')');
  if (Array.isArray(v)) {
    const parts = new Array(v.length);
    for (let i = 0; i < v.length; i++) parts[i] = encode(v[i], path + '[' + i + ']', depth + 1);
    return '[' + parts.join(',') + ']';
  }
  let entries;
  if (v instanceof Map) {
    entries = [];
    for (const [k, x] of v) {
      if (typeof k !== 'string') refuse(path, 'non-string key ' + String(k) + ' (' + typeName(k) + ')');
      entries.push([k, x]);
    }
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) refuse(path, typeName(v) + ' is not transferable');
    entries = Object.entries(v);
  }
  if (entries.length === 1 && entries[0][0] === '__bytes__' && typeof entries[0][1] === 'string')
    refuse(path, 'a map whose only key is "__bytes__" with a string value is reserved for bytes');
  entries.sort((a, b) => byCodePoint(a[0], b[0]));
  const parts = entries.map(([k, x]) => {
    if (LONE_SURROGATE.test(k)) refuse(path, 'key is not valid UTF-8 (lone surrogate)');
    return quote(k) + ':' + encode(x, path + '[' + quote(k) + ']', depth + 1);
  });
  return '{' + parts.join(',') + '}';
}

// ------------------------------------------------------------------ channel

const protocolFd = 1;
let outBuf = [];
let outSize = 0;

function writeAll(data) {
  let off = 0;
  while (off < data.length) {
    try {
      off += fs.writeSync(protocolFd, data, off);
    } catch (e) {
      if (e.code === 'EAGAIN') continue; // a non-blocking pipe that is full
      process.exit(0); // the judge closed the channel: nobody is left to answer
    }
  }
}

function sendLine(line) {
  outBuf.push(line);
  outSize += line.length;
}

function flush() {
  if (outSize === 0) return;
  const data = Buffer.from(outBuf.join(''), 'utf8');
  outBuf = [];
  outSize = 0;
  writeAll(data);
}

function errorFrame(id, code, message, trace) {
  return (
    '{"type":"error","id":' + quote(id) + ',"code":' + quote(code) + ',"message":' + quote(wellFormed(message)) +
    (trace === undefined ? '' : ',"trace":' + quote(wellFormed(trace))) + '}\n'
  );
}

function wellFormed(s) {
  return String(s).replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

// ------------------------------------------------------------------ logs

class LogStream {
  constructor(name) {
    this.name = name;
    this.text = '';
  }
  write(chunk, encoding, cb) {
    if (typeof encoding === 'function') cb = encoding;
    this.text += typeof chunk === 'string' ? chunk : utf8Lossy.decode(chunk);
    if (this.text.length >= MAX_LOG_CHUNK) this.flush();
    else {
      const nl = this.text.lastIndexOf('\n');
      if (nl >= 0) this.emit(nl + 1);
    }
    if (typeof cb === 'function') cb();
    return true;
  }
  flush() {
    if (this.text) this.emit(this.text.length);
  }
  emit(n) {
    const text = this.text.slice(0, n);
    this.text = this.text.slice(n);
    for (let i = 0; i < text.length; i += MAX_LOG_CHUNK) {
      sendLine('{"type":"log","stream":"' + this.name + '","data":' + quote(wellFormed(text.slice(i, i + MAX_LOG_CHUNK))) + '}\n');
    }
  }
}

const logs = [new LogStream('stdout'), new LogStream('stderr')];

function redirectStdio() {
  for (const [stream, log] of [[process.stdout, logs[0]], [process.stderr, logs[1]]]) {
    stream.write = log.write.bind(log);
  }
}

function flushLogs() {
  logs[0].flush();
  logs[1].flush();
}

// ------------------------------------------------------------------ capabilities

const pending = new Map(); // capability id -> {resolve, reject}
let closed = false;

class CapabilityError extends Error {
  constructor(message, code, trace) {
    super(message);
    this.code = code;
    this.trace = trace;
  }
}
class CapabilityNotFoundError extends CapabilityError {}
class CapabilityRejectedError extends CapabilityError {}
class CapabilityConnectionError extends CapabilityError {}
for (const c of [CapabilityError, CapabilityNotFoundError, CapabilityRejectedError, CapabilityConnectionError])
  Object.defineProperty(c.prototype, 'name', { value: c.name, writable: true, configurable: true });

let idCounter = 0;
const idPrefix = require('crypto').randomBytes(8).toString('hex');

function callCapability(name, ...args) {
  return new Promise((resolve, reject) => {
    if (typeof name !== 'string' || !name) throw new TypeError('capability name must be a non-empty string');
    if (closed) throw new CapabilityConnectionError('channel to the judge closed (stdin EOF)', '');
    const id = idPrefix + (idCounter++).toString(16).padStart(16, '0');
    let line;
    try {
      line = '{"type":"capability","id":"' + id + '","name":' + quote(name) + ',"args":' + encode(args, 'args') + '}\n';
    } catch (e) {
      if (e instanceof Rejected) throw new CapabilityRejectedError(e.message, 'Rejected');
      throw e;
    }
    if (Buffer.byteLength(line) - 1 > MAX_FRAME)
      throw new CapabilityRejectedError('frame size ' + (Buffer.byteLength(line) - 1) + ' > ' + MAX_FRAME, 'Rejected');
    pending.set(id, { resolve, reject });
    flushLogs();
    sendLine(line);
    flush();
  });
}

function settleCapability(id, frame, codecError) {
  const w = pending.get(id);
  if (!w) return;
  pending.delete(id);
  if (codecError !== null) return w.reject(new CapabilityRejectedError(codecError, 'Rejected'));
  if (frame.type === 'result') return w.resolve(frame.value === undefined ? null : frame.value);
  const code = typeof frame.code === 'string' ? frame.code : 'SystemError';
  const message = typeof frame.message === 'string' ? frame.message : String(frame.message);
  const cls = code === 'NotFound' ? CapabilityNotFoundError : code === 'Rejected' ? CapabilityRejectedError : CapabilityError;
  w.reject(new cls(message, code, frame.trace));
}

// ------------------------------------------------------------------ calls

let functions = new Map();
let importError = null;
const calls = [];
let running = false;

function sanitize(text) {
  // Absolute paths cut to file names, as the Python host does for traces.
  return String(text).replace(/(?:file:\/\/)?(?<![\w.:/\\-])\/(?:[^\s"'\\/<>:,;()[\]]+\/)+([^\s"'\\/<>:,;()[\]]+)/g, '$1');
}

function describe(e) {
  if (e instanceof Error) {
    const name = e.constructor && e.constructor.name ? e.constructor.name : e.name || 'Error';
    const msg = sanitize(e.message);
    return { line: msg ? name + ': ' + msg : name, trace: sanitize(e.stack || name) };
  }
  let text;
  try {
    text = String(e);
  } catch (_) {
    text = '<exception could not be reported>';
  }
  return { line: 'uncaught ' + typeName(e) + ': ' + sanitize(text), trace: undefined };
}

async function runCall(frame, codecError) {
  const id = frame.id;
  if (codecError !== null) return errorFrame(id, 'Rejected', 'args: ' + codecError);
  if (importError !== null) return errorFrame(id, 'Exception', importError.line, importError.trace);
  const name = frame.fn;
  const fn = typeof name === 'string' ? functions.get(name) : undefined;
  if (fn === undefined) {
    const shown = typeof name === 'string' ? "'" + name + "'" : JSON.stringify(name === undefined ? null : name);
    return errorFrame(id, 'NotFound', 'function ' + shown + ' not registered');
  }
  const args = frame.args === undefined ? [] : frame.args;
  if (!Array.isArray(args)) return errorFrame(id, 'Rejected', 'args must be an array');
  let value;
  try {
    value = fn(...args);
    if (value !== null && typeof value === 'object' && typeof value.then === 'function') value = await value;
  } catch (e) {
    const d = describe(e);
    return errorFrame(id, 'Exception', d.line.slice(0, 64 * 1024), d.trace);
  }
  let line;
  try {
    line = '{"type":"result","id":' + quote(id) + ',"value":' + encode(value) + '}\n';
  } catch (e) {
    if (e instanceof Rejected) return errorFrame(id, 'Rejected', e.message);
    return errorFrame(id, 'Rejected', 'value: cannot be encoded: ' + describe(e).line);
  }
  const size = Buffer.byteLength(line) - 1;
  if (size > MAX_FRAME) return errorFrame(id, 'Rejected', 'frame size ' + size + ' > ' + MAX_FRAME);
  return line;
}

async function serve() {
  if (running) return;
  running = true;
  while (calls.length) {
    const [frame, codecError] = calls.shift();
    let answer;
    try {
      answer = await runCall(frame, codecError);
    } catch (e) {
      answer = errorFrame(frame.id, 'SystemError', 'solution host: ' + describe(e).line);
    }
    flushLogs();
    sendLine(answer);
  }
  running = false;
  flush();
  if (closed) exit();
}

function exit() {
  flushLogs();
  flush();
  process.exit(0);
}

function dispatch(bytes) {
  let text;
  let utf8Error = null;
  try {
    text = utf8.decode(bytes);
  } catch (_) {
    text = utf8Lossy.decode(bytes);
    utf8Error = 'invalid UTF-8';
  }
  let parsed;
  try {
    parsed = parseText(text);
  } catch (e) {
    if (e instanceof Syntax || e instanceof RangeError) return; // plain text (or absurdly deep): ignored
    throw e;
  }
  const frame = parsed.value;
  const codecError = utf8Error !== null ? utf8Error : parsed.codecError;
  if (frame === null || typeof frame !== 'object' || Array.isArray(frame) || frame instanceof Uint8Array) return;
  const kind = frame.type;
  if (kind === 'call') {
    if (typeof frame.id === 'string' && frame.id) calls.push([frame, codecError]);
  } else if (kind === 'result' || kind === 'error') {
    if (typeof frame.id === 'string') settleCapability(frame.id, frame, codecError);
  } else if (kind === 'shutdown') {
    onEnd();
  }
}

// Lines from stdin: a last line without newline counts; a line over the
// limit is skipped whole without being held.
let held = [];
let heldSize = 0;
let skipping = false;

function onData(chunk) {
  let start = 0;
  for (;;) {
    const nl = chunk.indexOf(10, start);
    if (nl < 0) break;
    if (skipping) skipping = false;
    else if (heldSize === 0) dispatch(chunk.subarray(start, nl));
    else {
      held.push(chunk.subarray(start, nl));
      dispatch(Buffer.concat(held));
    }
    held = [];
    heldSize = 0;
    start = nl + 1;
  }
  if (start < chunk.length && !skipping) {
    held.push(chunk.subarray(start));
    heldSize += chunk.length - start;
    if (heldSize > MAX_LINE) {
      held = [];
      heldSize = 0;
      skipping = true;
    }
  }
  serve();
}

function onEnd() {
  if (closed) return;
  closed = true;
  if (heldSize > 0 && !skipping) dispatch(Buffer.concat(held));
  held = [];
  heldSize = 0;
  for (const [id, w] of pending) {
    pending.delete(id);
    w.reject(new CapabilityConnectionError('channel to the judge closed (stdin EOF)', ''));
  }
  process.stdin.pause();
  if (!running) {
    if (calls.length) serve();
    else exit();
  }
}

async function load(entry) {
  const file = path.resolve(entry);
  let mod;
  try {
    if (file.endsWith('.mjs')) mod = await import(pathToFileURL(file).href);
    else mod = require(file);
  } catch (e) {
    const d = describe(e);
    importError = { line: 'solution import failed: ' + d.line, trace: d.trace };
    return;
  }
  const found = new Map();
  const add = (obj) => {
    if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return;
    for (const k of Object.keys(obj)) if (typeof obj[k] === 'function' && !found.has(k)) found.set(k, obj[k]);
  };
  add(mod);
  if (mod && typeof mod === 'object' && mod.default) add(mod.default);
  if (typeof mod === 'function' && mod.name) found.set(mod.name, mod);
  // With functions declared in problem.json the judge appends to the
  // solution a function giving its top-level bindings of those names
  // (package sig, javascriptGlue): plain `function add(a, b)`, no export.
  const declared = globalThis[Symbol.for('tether.declared')];
  if (typeof declared === 'function') {
    let bindings = null;
    try {
      bindings = declared();
    } catch (_) {}
    add(bindings);
  }
  functions = found;
}

// Whether fn takes n arguments: its length, or fewer when it has default
// or rest parameters (which length does not count).
function takes(fn, n) {
  if (fn.length === n) return true;
  if (fn.length > n) return false;
  let text;
  try {
    text = Function.prototype.toString.call(fn);
  } catch (_) {
    return false;
  }
  const cut = text.search(/=>|\{/);
  const head = cut < 0 ? text : text.slice(0, cut);
  return head.includes('=') || head.includes('...');
}

// node host.js --check SPEC main.js: loads the solution (its top-level
// code runs) and exits 1, saying why on stdout, when a function SPEC
// declares ([{name, params, def}]) is missing or takes another number of
// parameters. The judge's compile step for declared functions.
async function check(specText, entry) {
  closed = true; // no judge: a capability call fails at once
  const out = (text) => fs.writeSync(1, text + '\n');
  process.on('unhandledRejection', () => {});
  process.on('uncaughtException', () => {});
  const spec = JSON.parse(specText);
  await load(entry);
  if (importError !== null) {
    out(entry + ': ' + importError.line);
    // The trace without the host's and Node's own frames.
    if (importError.trace) out(importError.trace.split('\n').filter((l) => !/^\s+at .*(node:|host\.js)/.test(l)).join('\n'));
    process.exit(1);
  }
  let failed = false;
  for (const want of spec) {
    const fn = functions.get(want.name);
    let why = null;
    if (fn === undefined) why = want.name + ' is missing';
    else if (!takes(fn, want.params))
      why = want.name + ' takes ' + fn.length + ' parameter' + (fn.length === 1 ? '' : 's') + ', not ' + want.params;
    if (why !== null) {
      out(entry + ': ' + why + '; the problem declares:\n    ' + want.def);
      failed = true;
    }
  }
  process.exit(failed ? 1 : 0);
}

async function main() {
  const entry = process.argv[2] || process.env.TETHER_SOLUTION_ENTRY;
  if (!entry) {
    process.stderr.write('usage: node host.js SOLUTION_FILE (or TETHER_SOLUTION_ENTRY)\n');
    process.exit(2);
  }
  process.on('SIGTERM', () => process.exit(0));
  const checking = entry === '--check';
  globalThis.tether = Object.freeze({
    callCapability,
    CapabilityError,
    CapabilityNotFoundError,
    CapabilityRejectedError,
    CapabilityConnectionError,
  });
  if (checking) return check(process.argv[3], process.argv[4]);
  writeAll(Buffer.from('{"type":"ready"}\n'));
  redirectStdio();
  // Unhandled rejections and errors in the solution's own callbacks are
  // logged, never fatal to the host.
  process.on('unhandledRejection', (e) => logs[1].write('unhandled rejection: ' + describe(e).line + '\n'));
  process.on('uncaughtException', (e) => logs[1].write('uncaught exception: ' + describe(e).line + '\n'));
  await load(entry);
  flushLogs();
  flush();
  process.stdin.on('data', onData);
  process.stdin.on('end', onEnd);
  process.stdin.on('error', onEnd);
}

if (require.main === module) main();

module.exports = { encode, parseText, pyFloat };
