var __defProp = Object.defineProperty;
var __export = (target, all7) => {
  for (var name in all7)
    __defProp(target, name, { get: all7[name], enumerable: !0 });
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Function.js
var isFunction = (input2) => typeof input2 == "function", dual = function(arity, body) {
  if (typeof arity == "function")
    return function() {
      return arity(arguments) ? body.apply(this, arguments) : (self) => body(self, ...arguments);
    };
  switch (arity) {
    case 0:
    case 1:
      throw new RangeError(`Invalid arity ${arity}`);
    case 2:
      return function(a, b) {
        return arguments.length >= 2 ? body(a, b) : function(self) {
          return body(self, a);
        };
      };
    case 3:
      return function(a, b, c) {
        return arguments.length >= 3 ? body(a, b, c) : function(self) {
          return body(self, a, b);
        };
      };
    case 4:
      return function(a, b, c, d) {
        return arguments.length >= 4 ? body(a, b, c, d) : function(self) {
          return body(self, a, b, c);
        };
      };
    case 5:
      return function(a, b, c, d, e) {
        return arguments.length >= 5 ? body(a, b, c, d, e) : function(self) {
          return body(self, a, b, c, d);
        };
      };
    default:
      return function() {
        if (arguments.length >= arity)
          return body.apply(this, arguments);
        let args2 = arguments;
        return function(self) {
          return body(self, ...args2);
        };
      };
  }
};
var identity = (a) => a;
var constant = (value2) => () => value2, constTrue = /* @__PURE__ */ constant(!0), constFalse = /* @__PURE__ */ constant(!1);
var constUndefined = /* @__PURE__ */ constant(void 0), constVoid = constUndefined;
function pipe(a, ab, bc, cd, de, ef, fg, gh, hi) {
  switch (arguments.length) {
    case 1:
      return a;
    case 2:
      return ab(a);
    case 3:
      return bc(ab(a));
    case 4:
      return cd(bc(ab(a)));
    case 5:
      return de(cd(bc(ab(a))));
    case 6:
      return ef(de(cd(bc(ab(a)))));
    case 7:
      return fg(ef(de(cd(bc(ab(a))))));
    case 8:
      return gh(fg(ef(de(cd(bc(ab(a)))))));
    case 9:
      return hi(gh(fg(ef(de(cd(bc(ab(a))))))));
    default: {
      let ret = arguments[0];
      for (let i = 1; i < arguments.length; i++)
        ret = arguments[i](ret);
      return ret;
    }
  }
}

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Equivalence.js
var make = (isEquivalent) => (self, that) => self === that || isEquivalent(self, that), isStrictEquivalent = (x, y) => x === y, strict = () => isStrictEquivalent;
var number = /* @__PURE__ */ strict();
var mapInput = /* @__PURE__ */ dual(2, (self, f) => make((x, y) => self(f(x), f(y)))), Date2 = /* @__PURE__ */ mapInput(number, (date2) => date2.getTime());
var array = (item) => make((self, that) => {
  if (self.length !== that.length)
    return !1;
  for (let i = 0; i < self.length; i++)
    if (!item(self[i], that[i]))
      return !1;
  return !0;
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/GlobalValue.js
var globalStoreId = "effect/GlobalValue", globalStore, globalValue = (id2, compute) => (globalStore || (globalThis[globalStoreId] ??= /* @__PURE__ */ new Map(), globalStore = globalThis[globalStoreId]), globalStore.has(id2) || globalStore.set(id2, compute()), globalStore.get(id2));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Predicate.js
var isString = (input2) => typeof input2 == "string", isNumber = (input2) => typeof input2 == "number", isBoolean = (input2) => typeof input2 == "boolean", isBigInt = (input2) => typeof input2 == "bigint", isSymbol = (input2) => typeof input2 == "symbol";
var isFunction2 = isFunction, isUndefined = (input2) => input2 === void 0, isNotUndefined = (input2) => input2 !== void 0;
var isNotNull = (input2) => input2 !== null, isNever = (_) => !1;
var isRecordOrArray = (input2) => typeof input2 == "object" && input2 !== null, isObject = (input2) => isRecordOrArray(input2) || isFunction2(input2), hasProperty = /* @__PURE__ */ dual(2, (self, property) => isObject(self) && property in self), isTagged = /* @__PURE__ */ dual(2, (self, tag2) => hasProperty(self, "_tag") && self._tag === tag2), isNullable = (input2) => input2 == null, isNotNullable = (input2) => input2 != null;
var isDate = (input2) => input2 instanceof Date, isIterable = (input2) => typeof input2 == "string" || hasProperty(input2, Symbol.iterator), isRecord = (input2) => isRecordOrArray(input2) && !Array.isArray(input2);
var isPromiseLike = (input2) => hasProperty(input2, "then") && isFunction2(input2.then);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/errors.js
var getBugErrorMessage = (message2) => `BUG: ${message2} - please report an issue at https://github.com/Effect-TS/effect/issues`;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Utils.js
var GenKindTypeId = /* @__PURE__ */ Symbol.for("effect/Gen/GenKind");
var GenKindImpl = class {
  value;
  constructor(value2) {
    this.value = value2;
  }
  /**
   * @since 2.0.0
   */
  get _F() {
    return identity;
  }
  /**
   * @since 2.0.0
   */
  get _R() {
    return (_) => _;
  }
  /**
   * @since 2.0.0
   */
  get _O() {
    return (_) => _;
  }
  /**
   * @since 2.0.0
   */
  get _E() {
    return (_) => _;
  }
  /**
   * @since 2.0.0
   */
  [GenKindTypeId] = GenKindTypeId;
  /**
   * @since 2.0.0
   */
  [Symbol.iterator]() {
    return new SingleShotGen(this);
  }
}, SingleShotGen = class _SingleShotGen {
  self;
  called = !1;
  constructor(self) {
    this.self = self;
  }
  /**
   * @since 2.0.0
   */
  next(a) {
    return this.called ? {
      value: a,
      done: !0
    } : (this.called = !0, {
      value: this.self,
      done: !1
    });
  }
  /**
   * @since 2.0.0
   */
  return(a) {
    return {
      value: a,
      done: !0
    };
  }
  /**
   * @since 2.0.0
   */
  throw(e) {
    throw e;
  }
  /**
   * @since 2.0.0
   */
  [Symbol.iterator]() {
    return new _SingleShotGen(this.self);
  }
};
var defaultIncHi = 335903614, defaultIncLo = 4150755663, MUL_HI = 1481765933, MUL_LO = 1284865837, BIT_53 = 9007199254740992, BIT_27 = 134217728, PCGRandom = class {
  _state;
  constructor(seedHi, seedLo, incHi, incLo) {
    return isNullable(seedLo) && isNullable(seedHi) ? (seedLo = Math.random() * 4294967295 >>> 0, seedHi = 0) : isNullable(seedLo) && (seedLo = seedHi, seedHi = 0), isNullable(incLo) && isNullable(incHi) ? (incLo = this._state ? this._state[3] : defaultIncLo, incHi = this._state ? this._state[2] : defaultIncHi) : isNullable(incLo) && (incLo = incHi, incHi = 0), this._state = new Int32Array([0, 0, incHi >>> 0, ((incLo || 0) | 1) >>> 0]), this._next(), add64(this._state, this._state[0], this._state[1], seedHi >>> 0, seedLo >>> 0), this._next(), this;
  }
  /**
   * Returns a copy of the internal state of this random number generator as a
   * JavaScript Array.
   *
   * @category getters
   * @since 2.0.0
   */
  getState() {
    return [this._state[0], this._state[1], this._state[2], this._state[3]];
  }
  /**
   * Restore state previously retrieved using `getState()`.
   *
   * @since 2.0.0
   */
  setState(state) {
    this._state[0] = state[0], this._state[1] = state[1], this._state[2] = state[2], this._state[3] = state[3] | 1;
  }
  /**
   * Get a uniformly distributed 32 bit integer between [0, max).
   *
   * @category getter
   * @since 2.0.0
   */
  integer(max6) {
    return Math.round(this.number() * Number.MAX_SAFE_INTEGER) % max6;
  }
  /**
   * Get a uniformly distributed IEEE-754 double between 0.0 and 1.0, with
   * 53 bits of precision (every bit of the mantissa is randomized).
   *
   * @category getters
   * @since 2.0.0
   */
  number() {
    let hi = (this._next() & 67108863) * 1, lo = (this._next() & 134217727) * 1;
    return (hi * BIT_27 + lo) / BIT_53;
  }
  /** @internal */
  _next() {
    let oldHi = this._state[0] >>> 0, oldLo = this._state[1] >>> 0;
    mul64(this._state, oldHi, oldLo, MUL_HI, MUL_LO), add64(this._state, this._state[0], this._state[1], this._state[2], this._state[3]);
    let xsHi = oldHi >>> 18, xsLo = (oldLo >>> 18 | oldHi << 14) >>> 0;
    xsHi = (xsHi ^ oldHi) >>> 0, xsLo = (xsLo ^ oldLo) >>> 0;
    let xorshifted = (xsLo >>> 27 | xsHi << 5) >>> 0, rot = oldHi >>> 27, rot2 = (-rot >>> 0 & 31) >>> 0;
    return (xorshifted >>> rot | xorshifted << rot2) >>> 0;
  }
};
function mul64(out, aHi, aLo, bHi, bLo) {
  let c1 = (aLo >>> 16) * (bLo & 65535) >>> 0, c0 = (aLo & 65535) * (bLo >>> 16) >>> 0, lo = (aLo & 65535) * (bLo & 65535) >>> 0, hi = (aLo >>> 16) * (bLo >>> 16) + ((c0 >>> 16) + (c1 >>> 16)) >>> 0;
  c0 = c0 << 16 >>> 0, lo = lo + c0 >>> 0, lo >>> 0 < c0 >>> 0 && (hi = hi + 1 >>> 0), c1 = c1 << 16 >>> 0, lo = lo + c1 >>> 0, lo >>> 0 < c1 >>> 0 && (hi = hi + 1 >>> 0), hi = hi + Math.imul(aLo, bHi) >>> 0, hi = hi + Math.imul(aHi, bLo) >>> 0, out[0] = hi, out[1] = lo;
}
function add64(out, aHi, aLo, bHi, bLo) {
  let hi = aHi + bHi >>> 0, lo = aLo + bLo >>> 0;
  lo >>> 0 < aLo >>> 0 && (hi = hi + 1 | 0), out[0] = hi, out[1] = lo;
}
var YieldWrapTypeId = /* @__PURE__ */ Symbol.for("effect/Utils/YieldWrap"), YieldWrap = class {
  /**
   * @since 3.0.6
   */
  #value;
  constructor(value2) {
    this.#value = value2;
  }
  /**
   * @since 3.0.6
   */
  [YieldWrapTypeId]() {
    return this.#value;
  }
};
function yieldWrapGet(self) {
  if (typeof self == "object" && self !== null && YieldWrapTypeId in self)
    return self[YieldWrapTypeId]();
  throw new Error(getBugErrorMessage("yieldWrapGet"));
}
var structuralRegionState = /* @__PURE__ */ globalValue("effect/Utils/isStructuralRegion", () => ({
  enabled: !1,
  tester: void 0
}));
var standard = {
  effect_internal_function: (body) => body()
}, forced = {
  effect_internal_function: (body) => body()
}, isNotOptimizedAway = /* @__PURE__ */ standard.effect_internal_function(() => new Error().stack)?.includes("effect_internal_function") === !0, internalCall = isNotOptimizedAway ? standard.effect_internal_function : forced.effect_internal_function, genConstructor = function* () {
}.constructor;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Hash.js
var randomHashCache = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/Hash/randomHashCache"), () => /* @__PURE__ */ new WeakMap()), symbol = /* @__PURE__ */ Symbol.for("effect/Hash"), hash = (self) => {
  if (structuralRegionState.enabled === !0)
    return 0;
  switch (typeof self) {
    case "number":
      return number2(self);
    case "bigint":
      return string(self.toString(10));
    case "boolean":
      return string(String(self));
    case "symbol":
      return string(String(self));
    case "string":
      return string(self);
    case "undefined":
      return string("undefined");
    case "function":
    case "object":
      return self === null ? string("null") : self instanceof Date ? Number.isNaN(self.getTime()) ? string("Invalid Date") : hash(self.toISOString()) : self instanceof URL ? hash(self.href) : isHash(self) ? self[symbol]() : random(self);
    default:
      throw new Error(`BUG: unhandled typeof ${typeof self} - please report an issue at https://github.com/Effect-TS/effect/issues`);
  }
}, random = (self) => (randomHashCache.has(self) || randomHashCache.set(self, number2(Math.floor(Math.random() * Number.MAX_SAFE_INTEGER))), randomHashCache.get(self)), combine = (b) => (self) => self * 53 ^ b, optimize = (n) => n & 3221225471 | n >>> 1 & 1073741824, isHash = (u) => hasProperty(u, symbol), number2 = (n) => {
  if (n !== n || n === 1 / 0)
    return 0;
  let h = n | 0;
  for (h !== n && (h ^= n * 4294967295); n > 4294967295; )
    h ^= n /= 4294967295;
  return optimize(h);
}, string = (str) => {
  let h = 5381, i = str.length;
  for (; i; )
    h = h * 33 ^ str.charCodeAt(--i);
  return optimize(h);
}, structureKeys = (o, keys7) => {
  let h = 12289;
  for (let i = 0; i < keys7.length; i++)
    h ^= pipe(string(keys7[i]), combine(hash(o[keys7[i]])));
  return optimize(h);
}, structure = (o) => structureKeys(o, Object.keys(o)), array2 = (arr) => {
  let h = 6151;
  for (let i = 0; i < arr.length; i++)
    h = pipe(h, combine(hash(arr[i])));
  return optimize(h);
}, cached = function() {
  if (arguments.length === 1) {
    let self2 = arguments[0];
    return function(hash3) {
      return Object.defineProperty(self2, symbol, {
        value() {
          return hash3;
        },
        enumerable: !1
      }), hash3;
    };
  }
  let self = arguments[0], hash2 = arguments[1];
  return Object.defineProperty(self, symbol, {
    value() {
      return hash2;
    },
    enumerable: !1
  }), hash2;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Equal.js
var symbol2 = /* @__PURE__ */ Symbol.for("effect/Equal");
function equals() {
  return arguments.length === 1 ? (self) => compareBoth(self, arguments[0]) : compareBoth(arguments[0], arguments[1]);
}
function compareBoth(self, that) {
  if (self === that)
    return !0;
  let selfType = typeof self;
  if (selfType !== typeof that)
    return !1;
  if (selfType === "object" || selfType === "function") {
    if (self !== null && that !== null) {
      if (isEqual(self) && isEqual(that))
        return hash(self) === hash(that) && self[symbol2](that) ? !0 : structuralRegionState.enabled && structuralRegionState.tester ? structuralRegionState.tester(self, that) : !1;
      if (self instanceof Date && that instanceof Date) {
        let t1 = self.getTime(), t2 = that.getTime();
        return t1 === t2 || Number.isNaN(t1) && Number.isNaN(t2);
      } else if (self instanceof URL && that instanceof URL)
        return self.href === that.href;
    }
    if (structuralRegionState.enabled) {
      if (self === null || that === null)
        return !1;
      if (Array.isArray(self) && Array.isArray(that))
        return self.length === that.length && self.every((v, i) => compareBoth(v, that[i]));
      if (Object.getPrototypeOf(self) === Object.prototype && Object.getPrototypeOf(that) === Object.prototype) {
        let keysSelf = Object.keys(self), keysThat = Object.keys(that);
        if (keysSelf.length === keysThat.length) {
          for (let key of keysSelf)
            if (!(key in that && compareBoth(self[key], that[key])))
              return structuralRegionState.tester ? structuralRegionState.tester(self, that) : !1;
          return !0;
        }
      }
      return structuralRegionState.tester ? structuralRegionState.tester(self, that) : !1;
    }
  }
  return structuralRegionState.enabled && structuralRegionState.tester ? structuralRegionState.tester(self, that) : !1;
}
var isEqual = (u) => hasProperty(u, symbol2), equivalence = () => equals;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Inspectable.js
var NodeInspectSymbol = /* @__PURE__ */ Symbol.for("nodejs.util.inspect.custom"), toJSON = (x) => {
  try {
    if (hasProperty(x, "toJSON") && isFunction2(x.toJSON) && x.toJSON.length === 0)
      return x.toJSON();
    if (Array.isArray(x))
      return x.map(toJSON);
  } catch {
    return {};
  }
  return redact(x);
}, CIRCULAR = "[Circular]";
function formatDate(date2) {
  try {
    return date2.toISOString();
  } catch {
    return "Invalid Date";
  }
}
function safeToString(input2) {
  try {
    let s = input2.toString();
    return typeof s == "string" ? s : String(s);
  } catch {
    return "[toString threw]";
  }
}
function formatPropertyKey(name) {
  return isString(name) ? JSON.stringify(name) : String(name);
}
function formatUnknown(input2, options) {
  let space = options?.space ?? 0, seen = /* @__PURE__ */ new WeakSet(), gap = space ? isNumber(space) ? " ".repeat(space) : space : "", ind = (d) => gap.repeat(d), wrap = (v, body) => {
    let ctor = v?.constructor;
    return ctor && ctor !== Object.prototype.constructor && ctor.name ? `${ctor.name}(${body})` : body;
  }, ownKeys = (o) => {
    try {
      return Reflect.ownKeys(o);
    } catch {
      return ["[ownKeys threw]"];
    }
  };
  function go2(v, d = 0) {
    if (Array.isArray(v)) {
      if (seen.has(v)) return CIRCULAR;
      if (seen.add(v), !gap || v.length <= 1) return `[${v.map((x) => go2(x, d)).join(",")}]`;
      let inner = v.map((x) => go2(x, d + 1)).join(`,
` + ind(d + 1));
      return `[
${ind(d + 1)}${inner}
${ind(d)}]`;
    }
    if (isDate(v)) return formatDate(v);
    if (!options?.ignoreToString && hasProperty(v, "toString") && isFunction2(v.toString) && v.toString !== Object.prototype.toString && v.toString !== Array.prototype.toString) {
      let s = safeToString(v);
      return v instanceof Error && v.cause ? `${s} (cause: ${go2(v.cause, d)})` : s;
    }
    if (isString(v)) return JSON.stringify(v);
    if (isNumber(v) || v == null || isBoolean(v) || isSymbol(v)) return String(v);
    if (isBigInt(v)) return String(v) + "n";
    if (v instanceof Set || v instanceof Map)
      return seen.has(v) ? CIRCULAR : (seen.add(v), `${v.constructor.name}(${go2(Array.from(v), d)})`);
    if (isObject(v)) {
      if (seen.has(v)) return CIRCULAR;
      seen.add(v);
      let keys7 = ownKeys(v);
      if (!gap || keys7.length <= 1) {
        let body2 = `{${keys7.map((k) => `${formatPropertyKey(k)}:${go2(v[k], d)}`).join(",")}}`;
        return wrap(v, body2);
      }
      let body = `{
${keys7.map((k) => `${ind(d + 1)}${formatPropertyKey(k)}: ${go2(v[k], d + 1)}`).join(`,
`)}
${ind(d)}}`;
      return wrap(v, body);
    }
    return String(v);
  }
  return go2(input2, 0);
}
var format = (x) => JSON.stringify(x, null, 2), BaseProto = {
  toJSON() {
    return toJSON(this);
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  toString() {
    return format(this.toJSON());
  }
}, Class = class {
  /**
   * @since 2.0.0
   */
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
  /**
   * @since 2.0.0
   */
  toString() {
    return format(this.toJSON());
  }
}, toStringUnknown = (u, whitespace = 2) => {
  if (typeof u == "string")
    return u;
  try {
    return typeof u == "object" ? stringifyCircular(u, whitespace) : String(u);
  } catch {
    return String(u);
  }
}, stringifyCircular = (obj, whitespace) => {
  let cache = [], retVal = JSON.stringify(obj, (_key, value2) => typeof value2 == "object" && value2 !== null ? cache.includes(value2) ? void 0 : cache.push(value2) && (redactableState.fiberRefs !== void 0 && isRedactable(value2) ? value2[symbolRedactable](redactableState.fiberRefs) : value2) : value2, whitespace);
  return cache = void 0, retVal;
}, symbolRedactable = /* @__PURE__ */ Symbol.for("effect/Inspectable/Redactable"), isRedactable = (u) => typeof u == "object" && u !== null && symbolRedactable in u, redactableState = /* @__PURE__ */ globalValue("effect/Inspectable/redactableState", () => ({
  fiberRefs: void 0
})), withRedactableContext = (context5, f) => {
  let prev = redactableState.fiberRefs;
  redactableState.fiberRefs = context5;
  try {
    return f();
  } finally {
    redactableState.fiberRefs = prev;
  }
}, redact = (u) => isRedactable(u) && redactableState.fiberRefs !== void 0 ? u[symbolRedactable](redactableState.fiberRefs) : u;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Pipeable.js
var pipeArguments = (self, args2) => {
  switch (args2.length) {
    case 0:
      return self;
    case 1:
      return args2[0](self);
    case 2:
      return args2[1](args2[0](self));
    case 3:
      return args2[2](args2[1](args2[0](self)));
    case 4:
      return args2[3](args2[2](args2[1](args2[0](self))));
    case 5:
      return args2[4](args2[3](args2[2](args2[1](args2[0](self)))));
    case 6:
      return args2[5](args2[4](args2[3](args2[2](args2[1](args2[0](self))))));
    case 7:
      return args2[6](args2[5](args2[4](args2[3](args2[2](args2[1](args2[0](self)))))));
    case 8:
      return args2[7](args2[6](args2[5](args2[4](args2[3](args2[2](args2[1](args2[0](self))))))));
    case 9:
      return args2[8](args2[7](args2[6](args2[5](args2[4](args2[3](args2[2](args2[1](args2[0](self)))))))));
    default: {
      let ret = self;
      for (let i = 0, len = args2.length; i < len; i++)
        ret = args2[i](ret);
      return ret;
    }
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/effect.js
var OP_ASYNC = "Async", OP_COMMIT = "Commit", OP_FAILURE = "Failure", OP_ON_FAILURE = "OnFailure", OP_ON_SUCCESS = "OnSuccess", OP_ON_SUCCESS_AND_FAILURE = "OnSuccessAndFailure", OP_SUCCESS = "Success", OP_SYNC = "Sync";
var OP_UPDATE_RUNTIME_FLAGS = "UpdateRuntimeFlags", OP_WHILE = "While", OP_ITERATOR = "Iterator", OP_WITH_RUNTIME = "WithRuntime", OP_YIELD = "Yield", OP_REVERT_FLAGS = "RevertFlags";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/version.js
var moduleVersion = "3.22.4", getCurrentVersion = () => moduleVersion;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/effectable.js
var EffectTypeId = /* @__PURE__ */ Symbol.for("effect/Effect"), StreamTypeId = /* @__PURE__ */ Symbol.for("effect/Stream"), SinkTypeId = /* @__PURE__ */ Symbol.for("effect/Sink"), ChannelTypeId = /* @__PURE__ */ Symbol.for("effect/Channel"), effectVariance = {
  /* c8 ignore next */
  _R: (_) => _,
  /* c8 ignore next */
  _E: (_) => _,
  /* c8 ignore next */
  _A: (_) => _,
  _V: /* @__PURE__ */ getCurrentVersion()
}, sinkVariance = {
  /* c8 ignore next */
  _A: (_) => _,
  /* c8 ignore next */
  _In: (_) => _,
  /* c8 ignore next */
  _L: (_) => _,
  /* c8 ignore next */
  _E: (_) => _,
  /* c8 ignore next */
  _R: (_) => _
}, channelVariance = {
  /* c8 ignore next */
  _Env: (_) => _,
  /* c8 ignore next */
  _InErr: (_) => _,
  /* c8 ignore next */
  _InElem: (_) => _,
  /* c8 ignore next */
  _InDone: (_) => _,
  /* c8 ignore next */
  _OutErr: (_) => _,
  /* c8 ignore next */
  _OutElem: (_) => _,
  /* c8 ignore next */
  _OutDone: (_) => _
}, EffectPrototype = {
  [EffectTypeId]: effectVariance,
  [StreamTypeId]: effectVariance,
  [SinkTypeId]: sinkVariance,
  [ChannelTypeId]: channelVariance,
  [symbol2](that) {
    return this === that;
  },
  [symbol]() {
    return cached(this, random(this));
  },
  [Symbol.iterator]() {
    return new SingleShotGen(new YieldWrap(this));
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, StructuralPrototype = {
  [symbol]() {
    return cached(this, structure(this));
  },
  [symbol2](that) {
    let selfKeys = Object.keys(this), thatKeys = Object.keys(that);
    if (selfKeys.length !== thatKeys.length)
      return !1;
    for (let key of selfKeys)
      if (!(key in that && equals(this[key], that[key])))
        return !1;
    return !0;
  }
}, CommitPrototype = {
  ...EffectPrototype,
  _op: OP_COMMIT
}, StructuralCommitPrototype = {
  ...CommitPrototype,
  ...StructuralPrototype
}, Base = /* @__PURE__ */ (function() {
  function Base3() {
  }
  return Base3.prototype = CommitPrototype, Base3;
})();

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/option.js
var TypeId = /* @__PURE__ */ Symbol.for("effect/Option"), CommonProto = {
  ...EffectPrototype,
  [TypeId]: {
    _A: (_) => _
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  toString() {
    return format(this.toJSON());
  }
}, SomeProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(CommonProto), {
  _tag: "Some",
  _op: "Some",
  [symbol2](that) {
    return isOption(that) && isSome(that) && equals(this.value, that.value);
  },
  [symbol]() {
    return cached(this, combine(hash(this._tag))(hash(this.value)));
  },
  toJSON() {
    return {
      _id: "Option",
      _tag: this._tag,
      value: toJSON(this.value)
    };
  }
}), NoneHash = /* @__PURE__ */ hash("None"), NoneProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(CommonProto), {
  _tag: "None",
  _op: "None",
  [symbol2](that) {
    return isOption(that) && isNone(that);
  },
  [symbol]() {
    return NoneHash;
  },
  toJSON() {
    return {
      _id: "Option",
      _tag: this._tag
    };
  }
}), isOption = (input2) => hasProperty(input2, TypeId), isNone = (fa) => fa._tag === "None", isSome = (fa) => fa._tag === "Some", none = /* @__PURE__ */ Object.create(NoneProto), some = (value2) => {
  let a = Object.create(SomeProto);
  return a.value = value2, a;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/either.js
var TypeId2 = /* @__PURE__ */ Symbol.for("effect/Either"), CommonProto2 = {
  ...EffectPrototype,
  [TypeId2]: {
    _R: (_) => _
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  toString() {
    return format(this.toJSON());
  }
}, RightProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(CommonProto2), {
  _tag: "Right",
  _op: "Right",
  [symbol2](that) {
    return isEither(that) && isRight(that) && equals(this.right, that.right);
  },
  [symbol]() {
    return combine(hash(this._tag))(hash(this.right));
  },
  toJSON() {
    return {
      _id: "Either",
      _tag: this._tag,
      right: toJSON(this.right)
    };
  }
}), LeftProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(CommonProto2), {
  _tag: "Left",
  _op: "Left",
  [symbol2](that) {
    return isEither(that) && isLeft(that) && equals(this.left, that.left);
  },
  [symbol]() {
    return combine(hash(this._tag))(hash(this.left));
  },
  toJSON() {
    return {
      _id: "Either",
      _tag: this._tag,
      left: toJSON(this.left)
    };
  }
}), isEither = (input2) => hasProperty(input2, TypeId2), isLeft = (ma) => ma._tag === "Left", isRight = (ma) => ma._tag === "Right", left = (left3) => {
  let a = Object.create(LeftProto);
  return a.left = left3, a;
}, right = (right3) => {
  let a = Object.create(RightProto);
  return a.right = right3, a;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Either.js
var right2 = right;
var left2 = left;
var isEither2 = isEither, isLeft2 = isLeft, isRight2 = isRight;
var mapBoth = /* @__PURE__ */ dual(2, (self, {
  onLeft,
  onRight
}) => isLeft2(self) ? left2(onLeft(self.left)) : right2(onRight(self.right))), mapLeft = /* @__PURE__ */ dual(2, (self, f) => isLeft2(self) ? left2(f(self.left)) : right2(self.right)), map = /* @__PURE__ */ dual(2, (self, f) => isRight2(self) ? right2(f(self.right)) : left2(self.left)), match = /* @__PURE__ */ dual(2, (self, {
  onLeft,
  onRight
}) => isLeft2(self) ? onLeft(self.left) : onRight(self.right));
var merge = /* @__PURE__ */ match({
  onLeft: identity,
  onRight: identity
});
var getOrThrowWith = /* @__PURE__ */ dual(2, (self, onLeft) => {
  if (isRight2(self))
    return self.right;
  throw onLeft(self.left);
}), getOrThrow = /* @__PURE__ */ getOrThrowWith(() => new Error("getOrThrow called on a Left"));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/array.js
var isNonEmptyArray = (self) => self.length > 0;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Order.js
var make2 = (compare2) => (self, that) => self === that ? 0 : compare2(self, that);
var number3 = /* @__PURE__ */ make2((self, that) => self < that ? -1 : 1);
var mapInput2 = /* @__PURE__ */ dual(2, (self, f) => make2((b1, b2) => self(f(b1), f(b2))));
var greaterThan = (O) => dual(2, (self, that) => O(self, that) === 1);
var min = (O) => dual(2, (self, that) => self === that || O(self, that) < 1 ? self : that), max = (O) => dual(2, (self, that) => self === that || O(self, that) > -1 ? self : that);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Option.js
var none2 = () => none, some2 = some, isOption2 = isOption, isNone2 = isNone, isSome2 = isSome, match2 = /* @__PURE__ */ dual(2, (self, {
  onNone,
  onSome
}) => isNone2(self) ? onNone() : onSome(self.value));
var getOrElse = /* @__PURE__ */ dual(2, (self, onNone) => isNone2(self) ? onNone() : self.value), orElse = /* @__PURE__ */ dual(2, (self, that) => isNone2(self) ? that() : self), orElseSome = /* @__PURE__ */ dual(2, (self, onNone) => isNone2(self) ? some2(onNone()) : self);
var fromNullable = (nullableValue) => nullableValue == null ? none2() : some2(nullableValue);
var getOrUndefined = /* @__PURE__ */ getOrElse(constUndefined), liftThrowable = (f) => (...a) => {
  try {
    return some2(f(...a));
  } catch {
    return none2();
  }
};
var map2 = /* @__PURE__ */ dual(2, (self, f) => isNone2(self) ? none2() : some2(f(self.value)));
var flatMap = /* @__PURE__ */ dual(2, (self, f) => isNone2(self) ? none2() : f(self.value));
var flatMapNullable = /* @__PURE__ */ dual(2, (self, f) => isNone2(self) ? none2() : fromNullable(f(self.value)));
var filterMap = flatMap, filter = /* @__PURE__ */ dual(2, (self, predicate) => filterMap(self, (b) => predicate(b) ? some(b) : none)), getEquivalence = (isEquivalent) => make((x, y) => isNone2(x) ? isNone2(y) : isNone2(y) ? !1 : isEquivalent(x.value, y.value));
var containsWith = (isEquivalent) => dual(2, (self, a) => isNone2(self) ? !1 : isEquivalent(self.value, a)), _equivalence = /* @__PURE__ */ equivalence(), contains = /* @__PURE__ */ containsWith(_equivalence), exists = /* @__PURE__ */ dual(2, (self, refinement) => isNone2(self) ? !1 : refinement(self.value));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Tuple.js
var make3 = (...elements) => elements;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Record.js
var empty = () => ({});
var fromEntries = Object.fromEntries;
var filterMap2 = /* @__PURE__ */ dual(2, (self, f) => {
  let out = empty();
  for (let key of keys(self)) {
    let o = f(self[key], key);
    isSome2(o) && (out[key] = o.value);
  }
  return out;
});
var keys = (self) => Object.keys(self);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Array.js
var allocate = (n) => new Array(n), makeBy = /* @__PURE__ */ dual(2, (n, f) => {
  let max6 = Math.max(1, Math.floor(n)), out = new Array(max6);
  for (let i = 0; i < max6; i++)
    out[i] = f(i);
  return out;
});
var fromIterable = (collection) => Array.isArray(collection) ? collection : Array.from(collection), ensure = (self) => Array.isArray(self) ? self : [self];
var matchLeft = /* @__PURE__ */ dual(2, (self, {
  onEmpty,
  onNonEmpty
}) => isNonEmptyReadonlyArray(self) ? onNonEmpty(headNonEmpty(self), tailNonEmpty(self)) : onEmpty());
var prepend = /* @__PURE__ */ dual(2, (self, head5) => [head5, ...self]);
var append = /* @__PURE__ */ dual(2, (self, last6) => [...self, last6]), appendAll = /* @__PURE__ */ dual(2, (self, that) => fromIterable(self).concat(fromIterable(that)));
var isArray = Array.isArray, isEmptyArray = (self) => self.length === 0, isEmptyReadonlyArray = isEmptyArray, isNonEmptyArray2 = isNonEmptyArray, isNonEmptyReadonlyArray = isNonEmptyArray;
var isOutOfBounds = (i, as8) => i < 0 || i >= as8.length, clamp = (i, as8) => Math.floor(Math.min(Math.max(0, i), as8.length)), get = /* @__PURE__ */ dual(2, (self, index) => {
  let i = Math.floor(index);
  return isOutOfBounds(i, self) ? none2() : some2(self[i]);
}), unsafeGet = /* @__PURE__ */ dual(2, (self, index) => {
  let i = Math.floor(index);
  if (isOutOfBounds(i, self))
    throw new Error(`Index ${i} out of bounds`);
  return self[i];
});
var head = /* @__PURE__ */ get(0), headNonEmpty = /* @__PURE__ */ unsafeGet(0), last = (self) => isNonEmptyReadonlyArray(self) ? some2(lastNonEmpty(self)) : none2(), lastNonEmpty = (self) => self[self.length - 1];
var tailNonEmpty = (self) => self.slice(1);
var spanIndex = (self, predicate) => {
  let i = 0;
  for (let a of self) {
    if (!predicate(a, i))
      break;
    i++;
  }
  return i;
}, span = /* @__PURE__ */ dual(2, (self, predicate) => splitAt(self, spanIndex(self, predicate))), drop = /* @__PURE__ */ dual(2, (self, n) => {
  let input2 = fromIterable(self);
  return input2.slice(clamp(n, input2), input2.length);
});
var reverse = (self) => Array.from(self).reverse(), sort = /* @__PURE__ */ dual(2, (self, O) => {
  let out = Array.from(self);
  return out.sort(O), out;
});
var zip = /* @__PURE__ */ dual(2, (self, that) => zipWith(self, that, make3)), zipWith = /* @__PURE__ */ dual(3, (self, that, f) => {
  let as8 = fromIterable(self), bs = fromIterable(that);
  if (isNonEmptyReadonlyArray(as8) && isNonEmptyReadonlyArray(bs)) {
    let out = [f(headNonEmpty(as8), headNonEmpty(bs))], len = Math.min(as8.length, bs.length);
    for (let i = 1; i < len; i++)
      out[i] = f(as8[i], bs[i]);
    return out;
  }
  return [];
});
var _equivalence2 = /* @__PURE__ */ equivalence();
var splitAt = /* @__PURE__ */ dual(2, (self, n) => {
  let input2 = Array.from(self), _n = Math.floor(n);
  return isNonEmptyReadonlyArray(input2) ? _n >= 1 ? splitNonEmptyAt(input2, _n) : [[], input2] : [input2, []];
}), splitNonEmptyAt = /* @__PURE__ */ dual(2, (self, n) => {
  let _n = Math.max(1, Math.floor(n));
  return _n >= self.length ? [copy(self), []] : [prepend(self.slice(1, _n), headNonEmpty(self)), self.slice(_n)];
});
var copy = (self) => self.slice();
var unionWith = /* @__PURE__ */ dual(3, (self, that, isEquivalent) => {
  let a = fromIterable(self), b = fromIterable(that);
  return isNonEmptyReadonlyArray(a) ? isNonEmptyReadonlyArray(b) ? dedupeWith(isEquivalent)(appendAll(a, b)) : a : b;
}), union = /* @__PURE__ */ dual(2, (self, that) => unionWith(self, that, _equivalence2));
var empty2 = () => [], of = (a) => [a], map3 = /* @__PURE__ */ dual(2, (self, f) => self.map(f)), flatMap2 = /* @__PURE__ */ dual(2, (self, f) => {
  if (isEmptyReadonlyArray(self))
    return [];
  let out = [];
  for (let i = 0; i < self.length; i++) {
    let inner = f(self[i], i);
    for (let j = 0; j < inner.length; j++)
      out.push(inner[j]);
  }
  return out;
}), flatten = /* @__PURE__ */ flatMap2(identity), filterMap3 = /* @__PURE__ */ dual(2, (self, f) => {
  let as8 = fromIterable(self), out = [];
  for (let i = 0; i < as8.length; i++) {
    let o = f(as8[i], i);
    isSome2(o) && out.push(o.value);
  }
  return out;
});
var filter2 = /* @__PURE__ */ dual(2, (self, predicate) => {
  let as8 = fromIterable(self), out = [];
  for (let i = 0; i < as8.length; i++)
    predicate(as8[i], i) && out.push(as8[i]);
  return out;
});
var reduce = /* @__PURE__ */ dual(3, (self, b, f) => fromIterable(self).reduce((b2, a, i) => f(b2, a, i), b));
var unfold = (b, f) => {
  let out = [], next3 = b, o;
  for (; isSome2(o = f(next3)); ) {
    let [a, b2] = o.value;
    out.push(a), next3 = b2;
  }
  return out;
};
var getEquivalence2 = array;
var dedupeWith = /* @__PURE__ */ dual(2, (self, isEquivalent) => {
  let input2 = fromIterable(self);
  if (isNonEmptyReadonlyArray(input2)) {
    let out = [headNonEmpty(input2)], rest = tailNonEmpty(input2);
    for (let r of rest)
      out.every((a) => !isEquivalent(r, a)) && out.push(r);
    return out;
  }
  return [];
}), dedupe = (self) => dedupeWith(self, equivalence());
var join = /* @__PURE__ */ dual(2, (self, sep) => fromIterable(self).join(sep));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Chunk.js
var TypeId3 = /* @__PURE__ */ Symbol.for("effect/Chunk");
function copy2(src, srcPos, dest, destPos, len) {
  for (let i = srcPos; i < Math.min(src.length, srcPos + len); i++)
    dest[destPos + i - srcPos] = src[i];
  return dest;
}
var emptyArray = [], getEquivalence3 = (isEquivalent) => make((self, that) => self.length === that.length && toReadonlyArray(self).every((value2, i) => isEquivalent(value2, unsafeGet2(that, i)))), _equivalence3 = /* @__PURE__ */ getEquivalence3(equals), ChunkProto = {
  [TypeId3]: {
    _A: (_) => _
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "Chunk",
      values: toReadonlyArray(this).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  [symbol2](that) {
    return isChunk(that) && _equivalence3(this, that);
  },
  [symbol]() {
    return cached(this, array2(toReadonlyArray(this)));
  },
  [Symbol.iterator]() {
    switch (this.backing._tag) {
      case "IArray":
        return this.backing.array[Symbol.iterator]();
      case "IEmpty":
        return emptyArray[Symbol.iterator]();
      default:
        return toReadonlyArray(this)[Symbol.iterator]();
    }
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, makeChunk = (backing) => {
  let chunk3 = Object.create(ChunkProto);
  switch (chunk3.backing = backing, backing._tag) {
    case "IEmpty": {
      chunk3.length = 0, chunk3.depth = 0, chunk3.left = chunk3, chunk3.right = chunk3;
      break;
    }
    case "IConcat": {
      chunk3.length = backing.left.length + backing.right.length, chunk3.depth = 1 + Math.max(backing.left.depth, backing.right.depth), chunk3.left = backing.left, chunk3.right = backing.right;
      break;
    }
    case "IArray": {
      chunk3.length = backing.array.length, chunk3.depth = 0, chunk3.left = _empty, chunk3.right = _empty;
      break;
    }
    case "ISingleton": {
      chunk3.length = 1, chunk3.depth = 0, chunk3.left = _empty, chunk3.right = _empty;
      break;
    }
    case "ISlice": {
      chunk3.length = backing.length, chunk3.depth = backing.chunk.depth + 1, chunk3.left = _empty, chunk3.right = _empty;
      break;
    }
  }
  return chunk3;
}, isChunk = (u) => hasProperty(u, TypeId3), _empty = /* @__PURE__ */ makeChunk({
  _tag: "IEmpty"
}), empty3 = () => _empty, make4 = (...as8) => unsafeFromNonEmptyArray(as8), of2 = (a) => makeChunk({
  _tag: "ISingleton",
  a
}), fromIterable2 = (self) => isChunk(self) ? self : unsafeFromArray(fromIterable(self)), copyToArray = (self, array5, initial2) => {
  switch (self.backing._tag) {
    case "IArray": {
      copy2(self.backing.array, 0, array5, initial2, self.length);
      break;
    }
    case "IConcat": {
      copyToArray(self.left, array5, initial2), copyToArray(self.right, array5, initial2 + self.left.length);
      break;
    }
    case "ISingleton": {
      array5[initial2] = self.backing.a;
      break;
    }
    case "ISlice": {
      let i = 0, j = initial2;
      for (; i < self.length; )
        array5[j] = unsafeGet2(self, i), i += 1, j += 1;
      break;
    }
  }
};
var toReadonlyArray_ = (self) => {
  switch (self.backing._tag) {
    case "IEmpty":
      return emptyArray;
    case "IArray":
      return self.backing.array;
    default: {
      let arr = new Array(self.length);
      return copyToArray(self, arr, 0), self.backing = {
        _tag: "IArray",
        array: arr
      }, self.left = _empty, self.right = _empty, self.depth = 0, arr;
    }
  }
}, toReadonlyArray = toReadonlyArray_, reverseChunk = (self) => {
  switch (self.backing._tag) {
    case "IEmpty":
    case "ISingleton":
      return self;
    case "IArray":
      return makeChunk({
        _tag: "IArray",
        array: reverse(self.backing.array)
      });
    case "IConcat":
      return makeChunk({
        _tag: "IConcat",
        left: reverse2(self.backing.right),
        right: reverse2(self.backing.left)
      });
    case "ISlice":
      return unsafeFromArray(reverse(toReadonlyArray(self)));
  }
}, reverse2 = reverseChunk, get2 = /* @__PURE__ */ dual(2, (self, index) => index < 0 || index >= self.length ? none2() : some2(unsafeGet2(self, index))), unsafeFromArray = (self) => self.length === 0 ? empty3() : self.length === 1 ? of2(self[0]) : makeChunk({
  _tag: "IArray",
  array: self
}), unsafeFromNonEmptyArray = (self) => unsafeFromArray(self), unsafeGet2 = /* @__PURE__ */ dual(2, (self, index) => {
  switch (self.backing._tag) {
    case "IEmpty":
      throw new Error("Index out of bounds");
    case "ISingleton": {
      if (index !== 0)
        throw new Error("Index out of bounds");
      return self.backing.a;
    }
    case "IArray": {
      if (index >= self.length || index < 0)
        throw new Error("Index out of bounds");
      return self.backing.array[index];
    }
    case "IConcat":
      return index < self.left.length ? unsafeGet2(self.left, index) : unsafeGet2(self.right, index - self.left.length);
    case "ISlice":
      return unsafeGet2(self.backing.chunk, index + self.backing.offset);
  }
}), append2 = /* @__PURE__ */ dual(2, (self, a) => appendAll2(self, of2(a))), prepend2 = /* @__PURE__ */ dual(2, (self, elem) => appendAll2(of2(elem), self));
var drop2 = /* @__PURE__ */ dual(2, (self, n) => {
  if (n <= 0)
    return self;
  if (n >= self.length)
    return _empty;
  switch (self.backing._tag) {
    case "ISlice":
      return makeChunk({
        _tag: "ISlice",
        chunk: self.backing.chunk,
        offset: self.backing.offset + n,
        length: self.backing.length - n
      });
    case "IConcat":
      return n > self.left.length ? drop2(self.right, n - self.left.length) : makeChunk({
        _tag: "IConcat",
        left: drop2(self.left, n),
        right: self.right
      });
    default:
      return makeChunk({
        _tag: "ISlice",
        chunk: self,
        offset: n,
        length: self.length - n
      });
  }
});
var appendAll2 = /* @__PURE__ */ dual(2, (self, that) => {
  if (self.backing._tag === "IEmpty")
    return that;
  if (that.backing._tag === "IEmpty")
    return self;
  let diff8 = that.depth - self.depth;
  if (Math.abs(diff8) <= 1)
    return makeChunk({
      _tag: "IConcat",
      left: self,
      right: that
    });
  if (diff8 < -1)
    if (self.left.depth >= self.right.depth) {
      let nr = appendAll2(self.right, that);
      return makeChunk({
        _tag: "IConcat",
        left: self.left,
        right: nr
      });
    } else {
      let nrr = appendAll2(self.right.right, that);
      if (nrr.depth === self.depth - 3) {
        let nr = makeChunk({
          _tag: "IConcat",
          left: self.right.left,
          right: nrr
        });
        return makeChunk({
          _tag: "IConcat",
          left: self.left,
          right: nr
        });
      } else {
        let nl = makeChunk({
          _tag: "IConcat",
          left: self.left,
          right: self.right.left
        });
        return makeChunk({
          _tag: "IConcat",
          left: nl,
          right: nrr
        });
      }
    }
  else if (that.right.depth >= that.left.depth) {
    let nl = appendAll2(self, that.left);
    return makeChunk({
      _tag: "IConcat",
      left: nl,
      right: that.right
    });
  } else {
    let nll = appendAll2(self, that.left.left);
    if (nll.depth === that.depth - 3) {
      let nl = makeChunk({
        _tag: "IConcat",
        left: nll,
        right: that.left.right
      });
      return makeChunk({
        _tag: "IConcat",
        left: nl,
        right: that.right
      });
    } else {
      let nr = makeChunk({
        _tag: "IConcat",
        left: that.left.right,
        right: that.right
      });
      return makeChunk({
        _tag: "IConcat",
        left: nll,
        right: nr
      });
    }
  }
});
var filter3 = /* @__PURE__ */ dual(2, (self, predicate) => unsafeFromArray(filter2(self, predicate)));
var isEmpty = (self) => self.length === 0, isNonEmpty = (self) => self.length > 0, head2 = /* @__PURE__ */ get2(0), unsafeHead = (self) => unsafeGet2(self, 0), headNonEmpty2 = unsafeHead;
var map4 = /* @__PURE__ */ dual(2, (self, f) => self.backing._tag === "ISingleton" ? of2(f(self.backing.a, 0)) : unsafeFromArray(pipe(toReadonlyArray(self), map3((a, i) => f(a, i)))));
var tailNonEmpty2 = (self) => drop2(self, 1);
var reduce2 = reduce;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/hashMap/config.js
var BUCKET_SIZE = /* @__PURE__ */ Math.pow(2, 5), MASK = BUCKET_SIZE - 1, MAX_INDEX_NODE = BUCKET_SIZE / 2, MIN_ARRAY_NODE = BUCKET_SIZE / 4;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/hashMap/bitwise.js
function popcount(x) {
  return x -= x >> 1 & 1431655765, x = (x & 858993459) + (x >> 2 & 858993459), x = x + (x >> 4) & 252645135, x += x >> 8, x += x >> 16, x & 127;
}
function hashFragment(shift2, h) {
  return h >>> shift2 & MASK;
}
function toBitmap(x) {
  return 1 << x;
}
function fromBitmap(bitmap, bit) {
  return popcount(bitmap & bit - 1);
}

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/stack.js
var make5 = (value2, previous) => ({
  value: value2,
  previous
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/hashMap/array.js
function arrayUpdate(mutate3, at, v, arr) {
  let out = arr;
  if (!mutate3) {
    let len = arr.length;
    out = new Array(len);
    for (let i = 0; i < len; ++i) out[i] = arr[i];
  }
  return out[at] = v, out;
}
function arraySpliceOut(mutate3, at, arr) {
  let newLen = arr.length - 1, i = 0, g = 0, out = arr;
  if (mutate3)
    i = g = at;
  else
    for (out = new Array(newLen); i < at; ) out[g++] = arr[i++];
  for (++i; i <= newLen; ) out[g++] = arr[i++];
  return mutate3 && (out.length = newLen), out;
}
function arraySpliceIn(mutate3, at, v, arr) {
  let len = arr.length;
  if (mutate3) {
    let i2 = len;
    for (; i2 >= at; ) arr[i2--] = arr[i2];
    return arr[at] = v, arr;
  }
  let i = 0, g = 0, out = new Array(len + 1);
  for (; i < at; ) out[g++] = arr[i++];
  for (out[at] = v; i < len; ) out[++g] = arr[i++];
  return out;
}

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/hashMap/node.js
var EmptyNode = class _EmptyNode {
  _tag = "EmptyNode";
  modify(edit, _shift, f, hash2, key, size13) {
    let v = f(none2());
    return isNone2(v) ? new _EmptyNode() : (++size13.value, new LeafNode(edit, hash2, key, v));
  }
};
function isEmptyNode(a) {
  return isTagged(a, "EmptyNode");
}
function isLeafNode(node) {
  return isEmptyNode(node) || node._tag === "LeafNode" || node._tag === "CollisionNode";
}
function canEditNode(node, edit) {
  return isEmptyNode(node) ? !1 : edit === node.edit;
}
var LeafNode = class _LeafNode {
  edit;
  hash;
  key;
  value;
  _tag = "LeafNode";
  constructor(edit, hash2, key, value2) {
    this.edit = edit, this.hash = hash2, this.key = key, this.value = value2;
  }
  modify(edit, shift2, f, hash2, key, size13) {
    if (equals(key, this.key)) {
      let v2 = f(this.value);
      return v2 === this.value ? this : isNone2(v2) ? (--size13.value, new EmptyNode()) : canEditNode(this, edit) ? (this.value = v2, this) : new _LeafNode(edit, hash2, key, v2);
    }
    let v = f(none2());
    return isNone2(v) ? this : (++size13.value, mergeLeaves(edit, shift2, this.hash, this, hash2, new _LeafNode(edit, hash2, key, v)));
  }
}, CollisionNode = class _CollisionNode {
  edit;
  hash;
  children;
  _tag = "CollisionNode";
  constructor(edit, hash2, children2) {
    this.edit = edit, this.hash = hash2, this.children = children2;
  }
  modify(edit, shift2, f, hash2, key, size13) {
    if (hash2 === this.hash) {
      let canEdit = canEditNode(this, edit), list = this.updateCollisionList(canEdit, edit, this.hash, this.children, f, key, size13);
      return list === this.children ? this : list.length > 1 ? new _CollisionNode(edit, this.hash, list) : list[0];
    }
    let v = f(none2());
    return isNone2(v) ? this : (++size13.value, mergeLeaves(edit, shift2, this.hash, this, hash2, new LeafNode(edit, hash2, key, v)));
  }
  updateCollisionList(mutate3, edit, hash2, list, f, key, size13) {
    let len = list.length;
    for (let i = 0; i < len; ++i) {
      let child = list[i];
      if ("key" in child && equals(key, child.key)) {
        let value2 = child.value, newValue2 = f(value2);
        return newValue2 === value2 ? list : isNone2(newValue2) ? (--size13.value, arraySpliceOut(mutate3, i, list)) : arrayUpdate(mutate3, i, new LeafNode(edit, hash2, key, newValue2), list);
      }
    }
    let newValue = f(none2());
    return isNone2(newValue) ? list : (++size13.value, arrayUpdate(mutate3, len, new LeafNode(edit, hash2, key, newValue), list));
  }
}, IndexedNode = class _IndexedNode {
  edit;
  mask;
  children;
  _tag = "IndexedNode";
  constructor(edit, mask, children2) {
    this.edit = edit, this.mask = mask, this.children = children2;
  }
  modify(edit, shift2, f, hash2, key, size13) {
    let mask = this.mask, children2 = this.children, frag = hashFragment(shift2, hash2), bit = toBitmap(frag), indx = fromBitmap(mask, bit), exists3 = mask & bit, canEdit = canEditNode(this, edit);
    if (!exists3) {
      let _newChild = new EmptyNode().modify(edit, shift2 + 5, f, hash2, key, size13);
      return _newChild ? children2.length >= MAX_INDEX_NODE ? expand(edit, frag, _newChild, mask, children2) : new _IndexedNode(edit, mask | bit, arraySpliceIn(canEdit, indx, _newChild, children2)) : this;
    }
    let current = children2[indx], child = current.modify(edit, shift2 + 5, f, hash2, key, size13);
    if (current === child) return this;
    let bitmap = mask, newChildren;
    if (isEmptyNode(child)) {
      if (bitmap &= ~bit, !bitmap) return new EmptyNode();
      if (children2.length <= 2 && isLeafNode(children2[indx ^ 1]))
        return children2[indx ^ 1];
      newChildren = arraySpliceOut(canEdit, indx, children2);
    } else
      newChildren = arrayUpdate(canEdit, indx, child, children2);
    return canEdit ? (this.mask = bitmap, this.children = newChildren, this) : new _IndexedNode(edit, bitmap, newChildren);
  }
}, ArrayNode = class _ArrayNode {
  edit;
  size;
  children;
  _tag = "ArrayNode";
  constructor(edit, size13, children2) {
    this.edit = edit, this.size = size13, this.children = children2;
  }
  modify(edit, shift2, f, hash2, key, size13) {
    let count3 = this.size, children2 = this.children, frag = hashFragment(shift2, hash2), child = children2[frag], newChild = (child || new EmptyNode()).modify(edit, shift2 + 5, f, hash2, key, size13);
    if (child === newChild) return this;
    let canEdit = canEditNode(this, edit), newChildren;
    if (isEmptyNode(child) && !isEmptyNode(newChild))
      ++count3, newChildren = arrayUpdate(canEdit, frag, newChild, children2);
    else if (!isEmptyNode(child) && isEmptyNode(newChild)) {
      if (--count3, count3 <= MIN_ARRAY_NODE)
        return pack(edit, count3, frag, children2);
      newChildren = arrayUpdate(canEdit, frag, new EmptyNode(), children2);
    } else
      newChildren = arrayUpdate(canEdit, frag, newChild, children2);
    return canEdit ? (this.size = count3, this.children = newChildren, this) : new _ArrayNode(edit, count3, newChildren);
  }
};
function pack(edit, count3, removed, elements) {
  let children2 = new Array(count3 - 1), g = 0, bitmap = 0;
  for (let i = 0, len = elements.length; i < len; ++i)
    if (i !== removed) {
      let elem = elements[i];
      elem && !isEmptyNode(elem) && (children2[g++] = elem, bitmap |= 1 << i);
    }
  return new IndexedNode(edit, bitmap, children2);
}
function expand(edit, frag, child, bitmap, subNodes) {
  let arr = [], bit = bitmap, count3 = 0;
  for (let i = 0; bit; ++i)
    bit & 1 && (arr[i] = subNodes[count3++]), bit >>>= 1;
  return arr[frag] = child, new ArrayNode(edit, count3 + 1, arr);
}
function mergeLeavesInner(edit, shift2, h1, n1, h2, n2) {
  if (h1 === h2) return new CollisionNode(edit, h1, [n2, n1]);
  let subH1 = hashFragment(shift2, h1), subH2 = hashFragment(shift2, h2);
  if (subH1 === subH2)
    return (child) => new IndexedNode(edit, toBitmap(subH1) | toBitmap(subH2), [child]);
  {
    let children2 = subH1 < subH2 ? [n1, n2] : [n2, n1];
    return new IndexedNode(edit, toBitmap(subH1) | toBitmap(subH2), children2);
  }
}
function mergeLeaves(edit, shift2, h1, n1, h2, n2) {
  let stack, currentShift = shift2;
  for (; ; ) {
    let res = mergeLeavesInner(edit, currentShift, h1, n1, h2, n2);
    if (typeof res == "function")
      stack = make5(res, stack), currentShift = currentShift + 5;
    else {
      let final = res;
      for (; stack != null; )
        final = stack.value(final), stack = stack.previous;
      return final;
    }
  }
}

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/hashMap.js
var HashMapSymbolKey = "effect/HashMap", HashMapTypeId = /* @__PURE__ */ Symbol.for(HashMapSymbolKey), HashMapProto = {
  [HashMapTypeId]: HashMapTypeId,
  [Symbol.iterator]() {
    return new HashMapIterator(this, (k, v) => [k, v]);
  },
  [symbol]() {
    let hash2 = hash(HashMapSymbolKey);
    for (let item of this)
      hash2 ^= pipe(hash(item[0]), combine(hash(item[1])));
    return cached(this, hash2);
  },
  [symbol2](that) {
    if (isHashMap(that)) {
      if (that._size !== this._size)
        return !1;
      for (let item of this) {
        let elem = pipe(that, getHash(item[0], hash(item[0])));
        if (isNone2(elem))
          return !1;
        if (!equals(item[1], elem.value))
          return !1;
      }
      return !0;
    }
    return !1;
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "HashMap",
      values: Array.from(this).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, makeImpl = (editable, edit, root, size13) => {
  let map24 = Object.create(HashMapProto);
  return map24._editable = editable, map24._edit = edit, map24._root = root, map24._size = size13, map24;
}, HashMapIterator = class _HashMapIterator {
  map;
  f;
  v;
  constructor(map24, f) {
    this.map = map24, this.f = f, this.v = visitLazy(this.map._root, this.f, void 0);
  }
  next() {
    if (isNone2(this.v))
      return {
        done: !0,
        value: void 0
      };
    let v0 = this.v.value;
    return this.v = applyCont(v0.cont), {
      done: !1,
      value: v0.value
    };
  }
  [Symbol.iterator]() {
    return new _HashMapIterator(this.map, this.f);
  }
}, applyCont = (cont) => cont ? visitLazyChildren(cont[0], cont[1], cont[2], cont[3], cont[4]) : none2(), visitLazy = (node, f, cont = void 0) => {
  switch (node._tag) {
    case "LeafNode":
      return isSome2(node.value) ? some2({
        value: f(node.key, node.value.value),
        cont
      }) : applyCont(cont);
    case "CollisionNode":
    case "ArrayNode":
    case "IndexedNode": {
      let children2 = node.children;
      return visitLazyChildren(children2.length, children2, 0, f, cont);
    }
    default:
      return applyCont(cont);
  }
}, visitLazyChildren = (len, children2, i, f, cont) => {
  for (; i < len; ) {
    let child = children2[i++];
    if (child && !isEmptyNode(child))
      return visitLazy(child, f, [len, children2, i, f, cont]);
  }
  return applyCont(cont);
}, _empty2 = /* @__PURE__ */ makeImpl(!1, 0, /* @__PURE__ */ new EmptyNode(), 0), empty4 = () => _empty2;
var fromIterable3 = (entries2) => {
  let map24 = beginMutation(empty4());
  for (let entry of entries2)
    set(map24, entry[0], entry[1]);
  return endMutation(map24);
}, isHashMap = (u) => hasProperty(u, HashMapTypeId), isEmpty2 = (self) => self && isEmptyNode(self._root), get3 = /* @__PURE__ */ dual(2, (self, key) => getHash(self, key, hash(key))), getHash = /* @__PURE__ */ dual(3, (self, key, hash2) => {
  let node = self._root, shift2 = 0;
  for (; ; )
    switch (node._tag) {
      case "LeafNode":
        return equals(key, node.key) ? node.value : none2();
      case "CollisionNode": {
        if (hash2 === node.hash) {
          let children2 = node.children;
          for (let i = 0, len = children2.length; i < len; ++i) {
            let child = children2[i];
            if ("key" in child && equals(key, child.key))
              return child.value;
          }
        }
        return none2();
      }
      case "IndexedNode": {
        let frag = hashFragment(shift2, hash2), bit = toBitmap(frag);
        if (node.mask & bit) {
          node = node.children[fromBitmap(node.mask, bit)], shift2 += 5;
          break;
        }
        return none2();
      }
      case "ArrayNode": {
        if (node = node.children[hashFragment(shift2, hash2)], node) {
          shift2 += 5;
          break;
        }
        return none2();
      }
      default:
        return none2();
    }
});
var has = /* @__PURE__ */ dual(2, (self, key) => isSome2(getHash(self, key, hash(key))));
var set = /* @__PURE__ */ dual(3, (self, key, value2) => modifyAt(self, key, () => some2(value2))), setTree = /* @__PURE__ */ dual(3, (self, newRoot, newSize) => self._editable ? (self._root = newRoot, self._size = newSize, self) : newRoot === self._root ? self : makeImpl(self._editable, self._edit, newRoot, newSize)), keys2 = (self) => new HashMapIterator(self, (key) => key);
var size = (self) => self._size;
var beginMutation = (self) => makeImpl(!0, self._edit + 1, self._root, self._size), endMutation = (self) => (self._editable = !1, self);
var modifyAt = /* @__PURE__ */ dual(3, (self, key, f) => modifyHash(self, key, hash(key), f)), modifyHash = /* @__PURE__ */ dual(4, (self, key, hash2, f) => {
  let size13 = {
    value: self._size
  }, newRoot = self._root.modify(self._editable ? self._edit : NaN, 0, f, hash2, key, size13);
  return pipe(self, setTree(newRoot, size13.value));
});
var remove2 = /* @__PURE__ */ dual(2, (self, key) => modifyAt(self, key, none2));
var map5 = /* @__PURE__ */ dual(2, (self, f) => reduce3(self, empty4(), (map24, value2, key) => set(map24, key, f(value2, key))));
var forEach = /* @__PURE__ */ dual(2, (self, f) => reduce3(self, void 0, (_, value2, key) => f(value2, key))), reduce3 = /* @__PURE__ */ dual(3, (self, zero2, f) => {
  let root = self._root;
  if (root._tag === "LeafNode")
    return isSome2(root.value) ? f(zero2, root.value.value, root.key) : zero2;
  if (root._tag === "EmptyNode")
    return zero2;
  let toVisit = [root.children], children2;
  for (; children2 = toVisit.pop(); )
    for (let i = 0, len = children2.length; i < len; ) {
      let child = children2[i++];
      child && !isEmptyNode(child) && (child._tag === "LeafNode" ? isSome2(child.value) && (zero2 = f(zero2, child.value.value, child.key)) : toVisit.push(child.children));
    }
  return zero2;
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/hashSet.js
var HashSetSymbolKey = "effect/HashSet", HashSetTypeId = /* @__PURE__ */ Symbol.for(HashSetSymbolKey), HashSetProto = {
  [HashSetTypeId]: HashSetTypeId,
  [Symbol.iterator]() {
    return keys2(this._keyMap);
  },
  [symbol]() {
    return cached(this, combine(hash(this._keyMap))(hash(HashSetSymbolKey)));
  },
  [symbol2](that) {
    return isHashSet(that) ? size(this._keyMap) === size(that._keyMap) && equals(this._keyMap, that._keyMap) : !1;
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "HashSet",
      values: Array.from(this).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, makeImpl2 = (keyMap) => {
  let set9 = Object.create(HashSetProto);
  return set9._keyMap = keyMap, set9;
}, isHashSet = (u) => hasProperty(u, HashSetTypeId), _empty3 = /* @__PURE__ */ makeImpl2(/* @__PURE__ */ empty4()), empty5 = () => _empty3, fromIterable4 = (elements) => {
  let set9 = beginMutation2(empty5());
  for (let value2 of elements)
    add(set9, value2);
  return endMutation2(set9);
}, make6 = (...elements) => {
  let set9 = beginMutation2(empty5());
  for (let value2 of elements)
    add(set9, value2);
  return endMutation2(set9);
}, has2 = /* @__PURE__ */ dual(2, (self, value2) => has(self._keyMap, value2));
var size2 = (self) => size(self._keyMap), beginMutation2 = (self) => makeImpl2(beginMutation(self._keyMap)), endMutation2 = (self) => (self._keyMap._editable = !1, self), mutate = /* @__PURE__ */ dual(2, (self, f) => {
  let transient = beginMutation2(self);
  return f(transient), endMutation2(transient);
}), add = /* @__PURE__ */ dual(2, (self, value2) => self._keyMap._editable ? (set(value2, !0)(self._keyMap), self) : makeImpl2(set(value2, !0)(self._keyMap))), remove3 = /* @__PURE__ */ dual(2, (self, value2) => self._keyMap._editable ? (remove2(value2)(self._keyMap), self) : makeImpl2(remove2(value2)(self._keyMap))), difference2 = /* @__PURE__ */ dual(2, (self, that) => mutate(self, (set9) => {
  for (let value2 of that)
    remove3(set9, value2);
}));
var union2 = /* @__PURE__ */ dual(2, (self, that) => mutate(empty5(), (set9) => {
  forEach2(self, (value2) => add(set9, value2));
  for (let value2 of that)
    add(set9, value2);
}));
var forEach2 = /* @__PURE__ */ dual(2, (self, f) => forEach(self._keyMap, (_, k) => f(k))), reduce4 = /* @__PURE__ */ dual(3, (self, zero2, f) => reduce3(self._keyMap, zero2, (z, _, a) => f(z, a)));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/HashSet.js
var empty6 = empty5, fromIterable5 = fromIterable4, make7 = make6, has3 = has2;
var size3 = size2;
var add2 = add, remove4 = remove3, difference3 = difference2;
var union3 = union2;
var reduce5 = reduce4;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/cause.js
var OP_EMPTY = "Empty", OP_FAIL = "Fail", OP_INTERRUPT = "Interrupt", OP_PARALLEL = "Parallel", OP_SEQUENTIAL = "Sequential";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/stackTraceLimit.js
var ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor, ObjectPrototypeHasOwnProperty = Object.prototype.hasOwnProperty, ObjectIsExtensible = Object.isExtensible, isStackTraceLimitWritable = () => {
  let desc = ObjectGetOwnPropertyDescriptor(Error, "stackTraceLimit");
  return desc === void 0 ? ObjectIsExtensible(Error) : ObjectPrototypeHasOwnProperty.call(desc, "writable") ? desc.writable === !0 : desc.set !== void 0;
}, canWriteStackTraceLimit = /* @__PURE__ */ isStackTraceLimitWritable(), getStackTraceLimit = () => Error.stackTraceLimit, setStackTraceLimit = (value2) => {
  canWriteStackTraceLimit && (Error.stackTraceLimit = value2);
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/cause.js
var CauseSymbolKey = "effect/Cause", CauseTypeId = /* @__PURE__ */ Symbol.for(CauseSymbolKey), variance = {
  /* c8 ignore next */
  _E: (_) => _
}, proto = {
  [CauseTypeId]: variance,
  [symbol]() {
    return pipe(hash(CauseSymbolKey), combine(hash(flattenCause(this))), cached(this));
  },
  [symbol2](that) {
    return isCause(that) && causeEquals(this, that);
  },
  pipe() {
    return pipeArguments(this, arguments);
  },
  toJSON() {
    switch (this._tag) {
      case "Empty":
        return {
          _id: "Cause",
          _tag: this._tag
        };
      case "Die":
        return {
          _id: "Cause",
          _tag: this._tag,
          defect: toJSON(this.defect)
        };
      case "Interrupt":
        return {
          _id: "Cause",
          _tag: this._tag,
          fiberId: this.fiberId.toJSON()
        };
      case "Fail":
        return {
          _id: "Cause",
          _tag: this._tag,
          error: toJSON(this.error)
        };
      case "Sequential":
      case "Parallel":
        return {
          _id: "Cause",
          _tag: this._tag,
          left: toJSON(this.left),
          right: toJSON(this.right)
        };
    }
  },
  toString() {
    return pretty(this);
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
}, empty7 = /* @__PURE__ */ (() => {
  let o = /* @__PURE__ */ Object.create(proto);
  return o._tag = OP_EMPTY, o;
})(), fail = (error) => {
  let o = Object.create(proto);
  return o._tag = OP_FAIL, o.error = error, o;
}, die = (defect) => {
  let o = Object.create(proto);
  return o._tag = "Die", o.defect = defect, o;
}, interrupt = (fiberId2) => {
  let o = Object.create(proto);
  return o._tag = OP_INTERRUPT, o.fiberId = fiberId2, o;
}, parallel = (left3, right3) => {
  let o = Object.create(proto);
  return o._tag = OP_PARALLEL, o.left = left3, o.right = right3, o;
}, sequential = (left3, right3) => {
  let o = Object.create(proto);
  return o._tag = OP_SEQUENTIAL, o.left = left3, o.right = right3, o;
}, isCause = (u) => hasProperty(u, CauseTypeId), isEmptyType = (self) => self._tag === OP_EMPTY, isFailType = (self) => self._tag === OP_FAIL, isDieType = (self) => self._tag === "Die";
var isEmpty3 = (self) => self._tag === OP_EMPTY ? !0 : reduce6(self, !0, (acc, cause2) => {
  switch (cause2._tag) {
    case OP_EMPTY:
      return some2(acc);
    case "Die":
    case OP_FAIL:
    case OP_INTERRUPT:
      return some2(!1);
    default:
      return none2();
  }
});
var isInterrupted = (self) => isSome2(interruptOption(self)), isInterruptedOnly = (self) => reduceWithContext(void 0, IsInterruptedOnlyCauseReducer)(self), failures = (self) => reverse2(reduce6(self, empty3(), (list, cause2) => cause2._tag === OP_FAIL ? some2(pipe(list, prepend2(cause2.error))) : none2())), defects = (self) => reverse2(reduce6(self, empty3(), (list, cause2) => cause2._tag === "Die" ? some2(pipe(list, prepend2(cause2.defect))) : none2())), interruptors = (self) => reduce6(self, empty6(), (set9, cause2) => cause2._tag === OP_INTERRUPT ? some2(pipe(set9, add2(cause2.fiberId))) : none2()), failureOption = (self) => find(self, (cause2) => cause2._tag === OP_FAIL ? some2(cause2.error) : none2()), failureOrCause = (self) => {
  let option4 = failureOption(self);
  switch (option4._tag) {
    case "None":
      return right2(self);
    case "Some":
      return left2(option4.value);
  }
};
var interruptOption = (self) => find(self, (cause2) => cause2._tag === OP_INTERRUPT ? some2(cause2.fiberId) : none2());
var stripFailures = (self) => match3(self, {
  onEmpty: empty7,
  onFail: () => empty7,
  onDie: die,
  onInterrupt: interrupt,
  onSequential: sequential,
  onParallel: parallel
}), electFailures = (self) => match3(self, {
  onEmpty: empty7,
  onFail: die,
  onDie: die,
  onInterrupt: interrupt,
  onSequential: sequential,
  onParallel: parallel
});
var map8 = /* @__PURE__ */ dual(2, (self, f) => flatMap5(self, (e) => fail(f(e)))), flatMap5 = /* @__PURE__ */ dual(2, (self, f) => match3(self, {
  onEmpty: empty7,
  onFail: (error) => f(error),
  onDie: (defect) => die(defect),
  onInterrupt: (fiberId2) => interrupt(fiberId2),
  onSequential: (left3, right3) => sequential(left3, right3),
  onParallel: (left3, right3) => parallel(left3, right3)
}));
var causeEquals = (left3, right3) => {
  let leftStack = of2(left3), rightStack = of2(right3);
  for (; isNonEmpty(leftStack) && isNonEmpty(rightStack); ) {
    let [leftParallel, leftSequential] = pipe(headNonEmpty2(leftStack), reduce6([empty6(), empty3()], ([parallel4, sequential5], cause2) => {
      let [par2, seq2] = evaluateCause(cause2);
      return some2([pipe(parallel4, union3(par2)), pipe(sequential5, appendAll2(seq2))]);
    })), [rightParallel, rightSequential] = pipe(headNonEmpty2(rightStack), reduce6([empty6(), empty3()], ([parallel4, sequential5], cause2) => {
      let [par2, seq2] = evaluateCause(cause2);
      return some2([pipe(parallel4, union3(par2)), pipe(sequential5, appendAll2(seq2))]);
    }));
    if (!equals(leftParallel, rightParallel))
      return !1;
    leftStack = leftSequential, rightStack = rightSequential;
  }
  return !0;
}, flattenCause = (cause2) => flattenCauseLoop(of2(cause2), empty3()), flattenCauseLoop = (causes, flattened) => {
  for (; ; ) {
    let [parallel4, sequential5] = pipe(causes, reduce([empty6(), empty3()], ([parallel5, sequential6], cause2) => {
      let [par2, seq2] = evaluateCause(cause2);
      return [pipe(parallel5, union3(par2)), pipe(sequential6, appendAll2(seq2))];
    })), updated = size3(parallel4) > 0 ? pipe(flattened, prepend2(parallel4)) : flattened;
    if (isEmpty(sequential5))
      return reverse2(updated);
    causes = sequential5, flattened = updated;
  }
  throw new Error(getBugErrorMessage("Cause.flattenCauseLoop"));
}, find = /* @__PURE__ */ dual(2, (self, pf) => {
  let stack = [self];
  for (; stack.length > 0; ) {
    let item = stack.pop(), option4 = pf(item);
    switch (option4._tag) {
      case "None": {
        switch (item._tag) {
          case OP_SEQUENTIAL:
          case OP_PARALLEL: {
            stack.push(item.right), stack.push(item.left);
            break;
          }
        }
        break;
      }
      case "Some":
        return option4;
    }
  }
  return none2();
});
var evaluateCause = (self) => {
  let cause2 = self, stack = [], _parallel = empty6(), _sequential = empty3();
  for (; cause2 !== void 0; )
    switch (cause2._tag) {
      case OP_EMPTY: {
        if (stack.length === 0)
          return [_parallel, _sequential];
        cause2 = stack.pop();
        break;
      }
      case OP_FAIL: {
        if (_parallel = add2(_parallel, make4(cause2._tag, cause2.error)), stack.length === 0)
          return [_parallel, _sequential];
        cause2 = stack.pop();
        break;
      }
      case "Die": {
        if (_parallel = add2(_parallel, make4(cause2._tag, cause2.defect)), stack.length === 0)
          return [_parallel, _sequential];
        cause2 = stack.pop();
        break;
      }
      case OP_INTERRUPT: {
        if (_parallel = add2(_parallel, make4(cause2._tag, cause2.fiberId)), stack.length === 0)
          return [_parallel, _sequential];
        cause2 = stack.pop();
        break;
      }
      case OP_SEQUENTIAL: {
        switch (cause2.left._tag) {
          case OP_EMPTY: {
            cause2 = cause2.right;
            break;
          }
          case OP_SEQUENTIAL: {
            cause2 = sequential(cause2.left.left, sequential(cause2.left.right, cause2.right));
            break;
          }
          case OP_PARALLEL: {
            cause2 = parallel(sequential(cause2.left.left, cause2.right), sequential(cause2.left.right, cause2.right));
            break;
          }
          default: {
            _sequential = prepend2(_sequential, cause2.right), cause2 = cause2.left;
            break;
          }
        }
        break;
      }
      case OP_PARALLEL: {
        stack.push(cause2.right), cause2 = cause2.left;
        break;
      }
    }
  throw new Error(getBugErrorMessage("Cause.evaluateCauseLoop"));
};
var IsInterruptedOnlyCauseReducer = {
  emptyCase: constTrue,
  failCase: constFalse,
  dieCase: constFalse,
  interruptCase: constTrue,
  sequentialCase: (_, left3, right3) => left3 && right3,
  parallelCase: (_, left3, right3) => left3 && right3
};
var OP_SEQUENTIAL_CASE = "SequentialCase", OP_PARALLEL_CASE = "ParallelCase", match3 = /* @__PURE__ */ dual(2, (self, {
  onDie,
  onEmpty,
  onFail,
  onInterrupt: onInterrupt3,
  onParallel,
  onSequential
}) => reduceWithContext(self, void 0, {
  emptyCase: () => onEmpty,
  failCase: (_, error) => onFail(error),
  dieCase: (_, defect) => onDie(defect),
  interruptCase: (_, fiberId2) => onInterrupt3(fiberId2),
  sequentialCase: (_, left3, right3) => onSequential(left3, right3),
  parallelCase: (_, left3, right3) => onParallel(left3, right3)
})), reduce6 = /* @__PURE__ */ dual(3, (self, zero2, pf) => {
  let accumulator = zero2, cause2 = self, causes = [];
  for (; cause2 !== void 0; ) {
    let option4 = pf(accumulator, cause2);
    switch (accumulator = isSome2(option4) ? option4.value : accumulator, cause2._tag) {
      case OP_SEQUENTIAL: {
        causes.push(cause2.right), cause2 = cause2.left;
        break;
      }
      case OP_PARALLEL: {
        causes.push(cause2.right), cause2 = cause2.left;
        break;
      }
      default: {
        cause2 = void 0;
        break;
      }
    }
    cause2 === void 0 && causes.length > 0 && (cause2 = causes.pop());
  }
  return accumulator;
}), reduceWithContext = /* @__PURE__ */ dual(3, (self, context5, reducer) => {
  let input2 = [self], output = [];
  for (; input2.length > 0; ) {
    let cause2 = input2.pop();
    switch (cause2._tag) {
      case OP_EMPTY: {
        output.push(right2(reducer.emptyCase(context5)));
        break;
      }
      case OP_FAIL: {
        output.push(right2(reducer.failCase(context5, cause2.error)));
        break;
      }
      case "Die": {
        output.push(right2(reducer.dieCase(context5, cause2.defect)));
        break;
      }
      case OP_INTERRUPT: {
        output.push(right2(reducer.interruptCase(context5, cause2.fiberId)));
        break;
      }
      case OP_SEQUENTIAL: {
        input2.push(cause2.right), input2.push(cause2.left), output.push(left2({
          _tag: OP_SEQUENTIAL_CASE
        }));
        break;
      }
      case OP_PARALLEL: {
        input2.push(cause2.right), input2.push(cause2.left), output.push(left2({
          _tag: OP_PARALLEL_CASE
        }));
        break;
      }
    }
  }
  let accumulator = [];
  for (; output.length > 0; ) {
    let either6 = output.pop();
    switch (either6._tag) {
      case "Left": {
        switch (either6.left._tag) {
          case OP_SEQUENTIAL_CASE: {
            let left3 = accumulator.pop(), right3 = accumulator.pop(), value2 = reducer.sequentialCase(context5, left3, right3);
            accumulator.push(value2);
            break;
          }
          case OP_PARALLEL_CASE: {
            let left3 = accumulator.pop(), right3 = accumulator.pop(), value2 = reducer.parallelCase(context5, left3, right3);
            accumulator.push(value2);
            break;
          }
        }
        break;
      }
      case "Right": {
        accumulator.push(either6.right);
        break;
      }
    }
  }
  if (accumulator.length === 0)
    throw new Error("BUG: Cause.reduceWithContext - please report an issue at https://github.com/Effect-TS/effect/issues");
  return accumulator.pop();
}), pretty = (cause2, options) => isInterruptedOnly(cause2) ? "All fibers interrupted without errors." : prettyErrors(cause2).map(function(e) {
  return options?.renderErrorCause !== !0 || e.cause === void 0 ? e.stack : `${e.stack} {
${renderErrorCause(e.cause, "  ")}
}`;
}).join(`
`), renderErrorCause = (cause2, prefix) => {
  let lines = cause2.stack.split(`
`), stack = `${prefix}[cause]: ${lines[0]}`;
  for (let i = 1, len = lines.length; i < len; i++)
    stack += `
${prefix}${lines[i]}`;
  return cause2.cause && (stack += ` {
${renderErrorCause(cause2.cause, `${prefix}  `)}
${prefix}}`), stack;
}, makePrettyError = (originalError) => {
  let originalErrorIsObject = typeof originalError == "object" && originalError !== null, prevLimit = getStackTraceLimit();
  setStackTraceLimit(1);
  let error = new Error(prettyErrorMessage(originalError), originalErrorIsObject && "cause" in originalError && typeof originalError.cause < "u" ? {
    cause: makePrettyError(originalError.cause)
  } : void 0);
  return setStackTraceLimit(prevLimit), error.message === "" && (error.message = "An error has occurred"), setStackTraceLimit(prevLimit), error.name = originalError instanceof Error ? originalError.name : "Error", originalErrorIsObject && (spanSymbol in originalError && (error.span = originalError[spanSymbol]), Object.keys(originalError).forEach((key) => {
    key in error || (error[key] = originalError[key]);
  })), error.stack = prettyErrorStack(`${error.name}: ${error.message}`, originalError instanceof Error && originalError.stack ? originalError.stack : "", error.span), error;
}, prettyErrorMessage = (u) => {
  if (typeof u == "string")
    return u;
  if (typeof u == "object" && u !== null && u instanceof Error)
    return u.message;
  try {
    if (hasProperty(u, "toString") && isFunction2(u.toString) && u.toString !== Object.prototype.toString && u.toString !== globalThis.Array.prototype.toString)
      return u.toString();
  } catch {
  }
  return stringifyCircular(u);
}, locationRegex = /\((.*)\)/g, spanToTrace = /* @__PURE__ */ globalValue("effect/Tracer/spanToTrace", () => /* @__PURE__ */ new WeakMap()), prettyErrorStack = (message2, stack, span2) => {
  let out = [message2], lines = stack.startsWith(message2) ? stack.slice(message2.length).split(`
`) : stack.split(`
`);
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].includes(" at new BaseEffectError") || lines[i].includes(" at new YieldableError")) {
      i++;
      continue;
    }
    if (lines[i].includes("Generator.next") || lines[i].includes("effect_internal_function"))
      break;
    out.push(lines[i].replace(/at .*effect_instruction_i.*\((.*)\)/, "at $1").replace(/EffectPrimitive\.\w+/, "<anonymous>"));
  }
  if (span2) {
    let current = span2, i = 0;
    for (; current && current._tag === "Span" && i < 10; ) {
      let stackFn = spanToTrace.get(current);
      if (typeof stackFn == "function") {
        let stack2 = stackFn();
        if (typeof stack2 == "string") {
          let locationMatchAll = stack2.matchAll(locationRegex), match14 = !1;
          for (let [, location] of locationMatchAll)
            match14 = !0, out.push(`    at ${current.name} (${location})`);
          match14 || out.push(`    at ${current.name} (${stack2.replace(/^at /, "")})`);
        } else
          out.push(`    at ${current.name}`);
      } else
        out.push(`    at ${current.name}`);
      current = getOrUndefined(current.parent), i++;
    }
  }
  return out.join(`
`);
}, spanSymbol = /* @__PURE__ */ Symbol.for("effect/SpanAnnotation"), prettyErrors = (cause2) => reduceWithContext(cause2, void 0, {
  emptyCase: () => [],
  dieCase: (_, unknownError) => [makePrettyError(unknownError)],
  failCase: (_, error) => [makePrettyError(error)],
  interruptCase: () => [],
  parallelCase: (_, l, r) => [...l, ...r],
  sequentialCase: (_, l, r) => [...l, ...r]
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/context.js
var TagTypeId = /* @__PURE__ */ Symbol.for("effect/Context/Tag"), ReferenceTypeId = /* @__PURE__ */ Symbol.for("effect/Context/Reference"), STMSymbolKey = "effect/STM", STMTypeId = /* @__PURE__ */ Symbol.for(STMSymbolKey), TagProto = {
  ...EffectPrototype,
  _op: "Tag",
  [STMTypeId]: effectVariance,
  [TagTypeId]: {
    _Service: (_) => _,
    _Identifier: (_) => _
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "Tag",
      key: this.key,
      stack: this.stack
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  of(self) {
    return self;
  },
  context(self) {
    return make8(this, self);
  }
}, ReferenceProto = {
  ...TagProto,
  [ReferenceTypeId]: ReferenceTypeId
}, makeGenericTag = (key) => {
  let limit = getStackTraceLimit();
  setStackTraceLimit(2);
  let creationError = new Error();
  setStackTraceLimit(limit);
  let tag2 = Object.create(TagProto);
  return Object.defineProperty(tag2, "stack", {
    get() {
      return creationError.stack;
    }
  }), tag2.key = key, tag2;
}, Tag = (id2) => () => {
  let limit = getStackTraceLimit();
  setStackTraceLimit(2);
  let creationError = new Error();
  setStackTraceLimit(limit);
  function TagClass() {
  }
  return Object.setPrototypeOf(TagClass, TagProto), TagClass.key = id2, Object.defineProperty(TagClass, "stack", {
    get() {
      return creationError.stack;
    }
  }), TagClass;
}, Reference = () => (id2, options) => {
  let limit = getStackTraceLimit();
  setStackTraceLimit(2);
  let creationError = new Error();
  setStackTraceLimit(limit);
  function ReferenceClass() {
  }
  return Object.setPrototypeOf(ReferenceClass, ReferenceProto), ReferenceClass.key = id2, ReferenceClass.defaultValue = options.defaultValue, Object.defineProperty(ReferenceClass, "stack", {
    get() {
      return creationError.stack;
    }
  }), ReferenceClass;
}, TypeId4 = /* @__PURE__ */ Symbol.for("effect/Context"), ContextProto = {
  [TypeId4]: {
    _Services: (_) => _
  },
  [symbol2](that) {
    if (isContext(that) && this.unsafeMap.size === that.unsafeMap.size) {
      for (let k of this.unsafeMap.keys())
        if (!that.unsafeMap.has(k) || !equals(this.unsafeMap.get(k), that.unsafeMap.get(k)))
          return !1;
      return !0;
    }
    return !1;
  },
  [symbol]() {
    return cached(this, number2(this.unsafeMap.size));
  },
  pipe() {
    return pipeArguments(this, arguments);
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "Context",
      services: Array.from(this.unsafeMap).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
}, makeContext = (unsafeMap) => {
  let context5 = Object.create(ContextProto);
  return context5.unsafeMap = unsafeMap, context5;
}, serviceNotFoundError = (tag2) => {
  let error = new Error(`Service not found${tag2.key ? `: ${String(tag2.key)}` : ""}`);
  if (tag2.stack) {
    let lines = tag2.stack.split(`
`);
    if (lines.length > 2) {
      let afterAt = lines[2].match(/at (.*)/);
      afterAt && (error.message = error.message + ` (defined at ${afterAt[1]})`);
    }
  }
  if (error.stack) {
    let lines = error.stack.split(`
`);
    lines.splice(1, 3), error.stack = lines.join(`
`);
  }
  return error;
}, isContext = (u) => hasProperty(u, TypeId4), isTag = (u) => hasProperty(u, TagTypeId), isReference = (u) => hasProperty(u, ReferenceTypeId), _empty4 = /* @__PURE__ */ makeContext(/* @__PURE__ */ new Map()), empty8 = () => _empty4, make8 = (tag2, service2) => makeContext(/* @__PURE__ */ new Map([[tag2.key, service2]])), add3 = /* @__PURE__ */ dual(3, (self, tag2, service2) => {
  let map24 = new Map(self.unsafeMap);
  return map24.set(tag2.key, service2), makeContext(map24);
}), defaultValueCache = /* @__PURE__ */ globalValue("effect/Context/defaultValueCache", () => /* @__PURE__ */ new Map()), getDefaultValue = (tag2) => {
  if (defaultValueCache.has(tag2.key))
    return defaultValueCache.get(tag2.key);
  let value2 = tag2.defaultValue();
  return defaultValueCache.set(tag2.key, value2), value2;
}, unsafeGetReference = (self, tag2) => self.unsafeMap.has(tag2.key) ? self.unsafeMap.get(tag2.key) : getDefaultValue(tag2), unsafeGet3 = /* @__PURE__ */ dual(2, (self, tag2) => {
  if (!self.unsafeMap.has(tag2.key)) {
    if (ReferenceTypeId in tag2) return getDefaultValue(tag2);
    throw serviceNotFoundError(tag2);
  }
  return self.unsafeMap.get(tag2.key);
}), get4 = unsafeGet3;
var getOption = /* @__PURE__ */ dual(2, (self, tag2) => self.unsafeMap.has(tag2.key) ? some(self.unsafeMap.get(tag2.key)) : isReference(tag2) ? some(getDefaultValue(tag2)) : none), merge2 = /* @__PURE__ */ dual(2, (self, that) => {
  let map24 = new Map(self.unsafeMap);
  for (let [tag2, s] of that.unsafeMap)
    map24.set(tag2, s);
  return makeContext(map24);
}), mergeAll = (...ctxs) => {
  let map24 = /* @__PURE__ */ new Map();
  for (let i = 0; i < ctxs.length; i++)
    ctxs[i].unsafeMap.forEach((value2, key) => {
      map24.set(key, value2);
    });
  return makeContext(map24);
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Context.js
var GenericTag = makeGenericTag;
var unsafeMake = makeContext, isContext2 = isContext, isTag2 = isTag;
var empty9 = empty8, make9 = make8, add4 = add3, get5 = get4;
var unsafeGet4 = unsafeGet3, getOption2 = getOption, merge3 = merge2, mergeAll2 = mergeAll;
var Tag2 = Tag, Reference2 = Reference;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Duration.js
var TypeId5 = /* @__PURE__ */ Symbol.for("effect/Duration"), bigint0 = /* @__PURE__ */ BigInt(0), bigint24 = /* @__PURE__ */ BigInt(24), bigint60 = /* @__PURE__ */ BigInt(60), bigint1e3 = /* @__PURE__ */ BigInt(1e3), bigint1e6 = /* @__PURE__ */ BigInt(1e6), bigint1e9 = /* @__PURE__ */ BigInt(1e9), DURATION_REGEX = /^(-?\d+(?:\.\d+)?)\s+(nanos?|micros?|millis?|seconds?|minutes?|hours?|days?|weeks?)$/, parseNanos = (input2, scale) => input2.includes(".") ? BigInt(Math.round(Number(input2) * scale)) : BigInt(input2) * BigInt(scale), decode = (input2) => {
  if (isDuration(input2))
    return input2;
  if (isNumber(input2))
    return millis(input2);
  if (isBigInt(input2))
    return nanos(input2);
  if (Array.isArray(input2) && input2.length === 2 && input2.every(isNumber))
    return input2[0] === -1 / 0 || input2[1] === -1 / 0 || Number.isNaN(input2[0]) || Number.isNaN(input2[1]) ? zero : input2[0] === 1 / 0 || input2[1] === 1 / 0 ? infinity : nanos(BigInt(Math.round(input2[0] * 1e9)) + BigInt(Math.round(input2[1])));
  if (isString(input2)) {
    let match14 = DURATION_REGEX.exec(input2);
    if (match14) {
      let [_, valueStr, unit] = match14, value2 = Number(valueStr);
      switch (unit) {
        case "nano":
        case "nanos":
          return nanos(parseNanos(valueStr, 1));
        case "micro":
        case "micros":
          return nanos(parseNanos(valueStr, 1e3));
        case "milli":
        case "millis":
          return millis(value2);
        case "second":
        case "seconds":
          return seconds(value2);
        case "minute":
        case "minutes":
          return minutes(value2);
        case "hour":
        case "hours":
          return hours(value2);
        case "day":
        case "days":
          return days(value2);
        case "week":
        case "weeks":
          return weeks(value2);
      }
    }
  }
  throw new Error("Invalid DurationInput");
};
var zeroValue = {
  _tag: "Millis",
  millis: 0
}, infinityValue = {
  _tag: "Infinity"
}, DurationProto = {
  [TypeId5]: TypeId5,
  [symbol]() {
    return cached(this, structure(this.value));
  },
  [symbol2](that) {
    return isDuration(that) && equals2(this, that);
  },
  toString() {
    return `Duration(${format2(this)})`;
  },
  toJSON() {
    switch (this.value._tag) {
      case "Millis":
        return {
          _id: "Duration",
          _tag: "Millis",
          millis: this.value.millis
        };
      case "Nanos":
        return {
          _id: "Duration",
          _tag: "Nanos",
          hrtime: toHrTime(this)
        };
      case "Infinity":
        return {
          _id: "Duration",
          _tag: "Infinity"
        };
    }
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, make10 = (input2) => {
  let duration3 = Object.create(DurationProto);
  return isNumber(input2) ? isNaN(input2) || input2 <= 0 ? duration3.value = zeroValue : Number.isFinite(input2) ? Number.isInteger(input2) ? duration3.value = {
    _tag: "Millis",
    millis: input2
  } : duration3.value = {
    _tag: "Nanos",
    nanos: BigInt(Math.round(input2 * 1e6))
  } : duration3.value = infinityValue : input2 <= bigint0 ? duration3.value = zeroValue : duration3.value = {
    _tag: "Nanos",
    nanos: input2
  }, duration3;
}, isDuration = (u) => hasProperty(u, TypeId5);
var isZero = (self) => {
  switch (self.value._tag) {
    case "Millis":
      return self.value.millis === 0;
    case "Nanos":
      return self.value.nanos === bigint0;
    case "Infinity":
      return !1;
  }
}, zero = /* @__PURE__ */ make10(0), infinity = /* @__PURE__ */ make10(1 / 0), nanos = (nanos2) => make10(nanos2);
var millis = (millis2) => make10(millis2), seconds = (seconds2) => make10(seconds2 * 1e3), minutes = (minutes2) => make10(minutes2 * 6e4), hours = (hours2) => make10(hours2 * 36e5), days = (days2) => make10(days2 * 864e5), weeks = (weeks2) => make10(weeks2 * 6048e5), toMillis = (self) => match4(self, {
  onMillis: (millis2) => millis2,
  onNanos: (nanos2) => Number(nanos2) / 1e6
});
var unsafeToNanos = (self) => {
  let _self = decode(self);
  switch (_self.value._tag) {
    case "Infinity":
      throw new Error("Cannot convert infinite duration to nanos");
    case "Nanos":
      return _self.value.nanos;
    case "Millis":
      return BigInt(Math.round(_self.value.millis * 1e6));
  }
}, toHrTime = (self) => {
  let _self = decode(self);
  switch (_self.value._tag) {
    case "Infinity":
      return [1 / 0, 0];
    case "Nanos":
      return [Number(_self.value.nanos / bigint1e9), Number(_self.value.nanos % bigint1e9)];
    case "Millis":
      return [Math.floor(_self.value.millis / 1e3), Math.round(_self.value.millis % 1e3 * 1e6)];
  }
}, match4 = /* @__PURE__ */ dual(2, (self, options) => {
  let _self = decode(self);
  switch (_self.value._tag) {
    case "Nanos":
      return options.onNanos(_self.value.nanos);
    case "Infinity":
      return options.onMillis(1 / 0);
    case "Millis":
      return options.onMillis(_self.value.millis);
  }
}), matchWith = /* @__PURE__ */ dual(3, (self, that, options) => {
  let _self = decode(self), _that = decode(that);
  if (_self.value._tag === "Infinity" || _that.value._tag === "Infinity")
    return options.onMillis(toMillis(_self), toMillis(_that));
  if (_self.value._tag === "Nanos" || _that.value._tag === "Nanos") {
    let selfNanos = _self.value._tag === "Nanos" ? _self.value.nanos : BigInt(Math.round(_self.value.millis * 1e6)), thatNanos = _that.value._tag === "Nanos" ? _that.value.nanos : BigInt(Math.round(_that.value.millis * 1e6));
    return options.onNanos(selfNanos, thatNanos);
  }
  return options.onMillis(_self.value.millis, _that.value.millis);
}), Order = /* @__PURE__ */ make2((self, that) => matchWith(self, that, {
  onMillis: (self2, that2) => self2 < that2 ? -1 : self2 > that2 ? 1 : 0,
  onNanos: (self2, that2) => self2 < that2 ? -1 : self2 > that2 ? 1 : 0
}));
var Equivalence = (self, that) => matchWith(self, that, {
  onMillis: (self2, that2) => self2 === that2,
  onNanos: (self2, that2) => self2 === that2
}), _min = /* @__PURE__ */ min(Order), min2 = /* @__PURE__ */ dual(2, (self, that) => _min(decode(self), decode(that))), _max = /* @__PURE__ */ max(Order), max2 = /* @__PURE__ */ dual(2, (self, that) => _max(decode(self), decode(that)));
var times = /* @__PURE__ */ dual(2, (self, times2) => match4(self, {
  onMillis: (millis2) => make10(millis2 * times2),
  onNanos: (nanos2) => {
    if (Number.isInteger(times2))
      return make10(nanos2 * BigInt(times2));
    let result = Number(nanos2) * times2;
    return make10(Number.isFinite(result) ? BigInt(Math.round(result)) : result);
  }
}));
var sum = /* @__PURE__ */ dual(2, (self, that) => matchWith(self, that, {
  onMillis: (self2, that2) => make10(self2 + that2),
  onNanos: (self2, that2) => make10(self2 + that2)
}));
var lessThanOrEqualTo = /* @__PURE__ */ dual(2, (self, that) => matchWith(self, that, {
  onMillis: (self2, that2) => self2 <= that2,
  onNanos: (self2, that2) => self2 <= that2
}));
var greaterThanOrEqualTo = /* @__PURE__ */ dual(2, (self, that) => matchWith(self, that, {
  onMillis: (self2, that2) => self2 >= that2,
  onNanos: (self2, that2) => self2 >= that2
})), equals2 = /* @__PURE__ */ dual(2, (self, that) => Equivalence(decode(self), decode(that))), parts = (self) => {
  let duration3 = decode(self);
  if (duration3.value._tag === "Infinity")
    return {
      days: 1 / 0,
      hours: 1 / 0,
      minutes: 1 / 0,
      seconds: 1 / 0,
      millis: 1 / 0,
      nanos: 1 / 0
    };
  let nanos2 = unsafeToNanos(duration3), ms = nanos2 / bigint1e6, sec = ms / bigint1e3, min4 = sec / bigint60, hr = min4 / bigint60, days2 = hr / bigint24;
  return {
    days: Number(days2),
    hours: Number(hr % bigint24),
    minutes: Number(min4 % bigint60),
    seconds: Number(sec % bigint60),
    millis: Number(ms % bigint1e3),
    nanos: Number(nanos2 % bigint1e6)
  };
}, format2 = (self) => {
  let duration3 = decode(self);
  if (duration3.value._tag === "Infinity")
    return "Infinity";
  if (isZero(duration3))
    return "0";
  let fragments = parts(duration3), pieces = [];
  return fragments.days !== 0 && pieces.push(`${fragments.days}d`), fragments.hours !== 0 && pieces.push(`${fragments.hours}h`), fragments.minutes !== 0 && pieces.push(`${fragments.minutes}m`), fragments.seconds !== 0 && pieces.push(`${fragments.seconds}s`), fragments.millis !== 0 && pieces.push(`${fragments.millis}ms`), fragments.nanos !== 0 && pieces.push(`${fragments.nanos}ns`), pieces.join(" ");
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/MutableRef.js
var TypeId6 = /* @__PURE__ */ Symbol.for("effect/MutableRef"), MutableRefProto = {
  [TypeId6]: TypeId6,
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "MutableRef",
      current: toJSON(this.current)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, make11 = (value2) => {
  let ref = Object.create(MutableRefProto);
  return ref.current = value2, ref;
}, compareAndSet = /* @__PURE__ */ dual(3, (self, oldValue, newValue) => equals(oldValue, self.current) ? (self.current = newValue, !0) : !1);
var get6 = (self) => self.current;
var set2 = /* @__PURE__ */ dual(2, (self, value2) => (self.current = value2, self));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/fiberId.js
var FiberIdSymbolKey = "effect/FiberId", FiberIdTypeId = /* @__PURE__ */ Symbol.for(FiberIdSymbolKey), OP_NONE = "None", OP_RUNTIME = "Runtime", OP_COMPOSITE = "Composite", emptyHash = /* @__PURE__ */ string(`${FiberIdSymbolKey}-${OP_NONE}`), None = class {
  [FiberIdTypeId] = FiberIdTypeId;
  _tag = OP_NONE;
  id = -1;
  startTimeMillis = -1;
  [symbol]() {
    return emptyHash;
  }
  [symbol2](that) {
    return isFiberId(that) && that._tag === OP_NONE;
  }
  toString() {
    return format(this.toJSON());
  }
  toJSON() {
    return {
      _id: "FiberId",
      _tag: this._tag
    };
  }
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
}, Runtime = class {
  id;
  startTimeMillis;
  [FiberIdTypeId] = FiberIdTypeId;
  _tag = OP_RUNTIME;
  constructor(id2, startTimeMillis) {
    this.id = id2, this.startTimeMillis = startTimeMillis;
  }
  [symbol]() {
    return cached(this, string(`${FiberIdSymbolKey}-${this._tag}-${this.id}-${this.startTimeMillis}`));
  }
  [symbol2](that) {
    return isFiberId(that) && that._tag === OP_RUNTIME && this.id === that.id && this.startTimeMillis === that.startTimeMillis;
  }
  toString() {
    return format(this.toJSON());
  }
  toJSON() {
    return {
      _id: "FiberId",
      _tag: this._tag,
      id: this.id,
      startTimeMillis: this.startTimeMillis
    };
  }
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
}, Composite = class {
  left;
  right;
  [FiberIdTypeId] = FiberIdTypeId;
  _tag = OP_COMPOSITE;
  constructor(left3, right3) {
    this.left = left3, this.right = right3;
  }
  _hash;
  [symbol]() {
    return pipe(string(`${FiberIdSymbolKey}-${this._tag}`), combine(hash(this.left)), combine(hash(this.right)), cached(this));
  }
  [symbol2](that) {
    return isFiberId(that) && that._tag === OP_COMPOSITE && equals(this.left, that.left) && equals(this.right, that.right);
  }
  toString() {
    return format(this.toJSON());
  }
  toJSON() {
    return {
      _id: "FiberId",
      _tag: this._tag,
      left: toJSON(this.left),
      right: toJSON(this.right)
    };
  }
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
}, none3 = /* @__PURE__ */ new None();
var isFiberId = (self) => hasProperty(self, FiberIdTypeId);
var combine2 = /* @__PURE__ */ dual(2, (self, that) => self._tag === OP_NONE ? that : that._tag === OP_NONE ? self : new Composite(self, that)), combineAll = (fiberIds) => pipe(fiberIds, reduce5(none3, (a, b) => combine2(b)(a)));
var ids = (self) => {
  switch (self._tag) {
    case OP_NONE:
      return empty6();
    case OP_RUNTIME:
      return make7(self.id);
    case OP_COMPOSITE:
      return pipe(ids(self.left), union3(ids(self.right)));
  }
}, _fiberCounter = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/Fiber/Id/_fiberCounter"), () => make11(0));
var threadName = (self) => Array.from(ids(self)).map((n) => `#${n}`).join(",");
var unsafeMake2 = () => {
  let id2 = get6(_fiberCounter);
  return pipe(_fiberCounter, set2(id2 + 1)), new Runtime(id2, Date.now());
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/FiberId.js
var none4 = none3;
var combine3 = combine2, combineAll2 = combineAll;
var ids2 = ids;
var threadName2 = threadName;
var unsafeMake3 = unsafeMake2;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/HashMap.js
var empty10 = empty4;
var fromIterable6 = fromIterable3, isEmpty4 = isEmpty2, get7 = get3;
var set3 = set, keys3 = keys2;
var size4 = size;
var modifyAt2 = modifyAt;
var map9 = map5;
var reduce7 = reduce3;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/List.js
var TypeId7 = /* @__PURE__ */ Symbol.for("effect/List"), toArray2 = (self) => fromIterable(self), getEquivalence4 = (isEquivalent) => mapInput(getEquivalence2(isEquivalent), toArray2), _equivalence4 = /* @__PURE__ */ getEquivalence4(equals), ConsProto = {
  [TypeId7]: TypeId7,
  _tag: "Cons",
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "List",
      _tag: "Cons",
      values: toArray2(this).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  [symbol2](that) {
    return isList(that) && this._tag === that._tag && _equivalence4(this, that);
  },
  [symbol]() {
    return cached(this, array2(toArray2(this)));
  },
  [Symbol.iterator]() {
    let done7 = !1, self = this;
    return {
      next() {
        if (done7)
          return this.return();
        if (self._tag === "Nil")
          return done7 = !0, this.return();
        let value2 = self.head;
        return self = self.tail, {
          done: done7,
          value: value2
        };
      },
      return(value2) {
        return done7 || (done7 = !0), {
          done: !0,
          value: value2
        };
      }
    };
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, makeCons = (head5, tail) => {
  let cons2 = Object.create(ConsProto);
  return cons2.head = head5, cons2.tail = tail, cons2;
}, NilHash = /* @__PURE__ */ string("Nil"), NilProto = {
  [TypeId7]: TypeId7,
  _tag: "Nil",
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "List",
      _tag: "Nil"
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  [symbol]() {
    return NilHash;
  },
  [symbol2](that) {
    return isList(that) && this._tag === that._tag;
  },
  [Symbol.iterator]() {
    return {
      next() {
        return {
          done: !0,
          value: void 0
        };
      }
    };
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, _Nil = /* @__PURE__ */ Object.create(NilProto), isList = (u) => hasProperty(u, TypeId7), isNil = (self) => self._tag === "Nil", isCons = (self) => self._tag === "Cons";
var nil = () => _Nil, cons = (head5, tail) => makeCons(head5, tail), empty11 = nil, of3 = (value2) => makeCons(value2, _Nil);
var appendAll3 = /* @__PURE__ */ dual(2, (self, that) => prependAll(that, self)), prepend3 = /* @__PURE__ */ dual(2, (self, element) => cons(element, self)), prependAll = /* @__PURE__ */ dual(2, (self, prefix) => {
  if (isNil(self))
    return prefix;
  if (isNil(prefix))
    return self;
  {
    let result = makeCons(prefix.head, self), curr = result, that = prefix.tail;
    for (; !isNil(that); ) {
      let temp = makeCons(that.head, self);
      curr.tail = temp, curr = temp, that = that.tail;
    }
    return result;
  }
});
var reduce8 = /* @__PURE__ */ dual(3, (self, zero2, f) => {
  let acc = zero2, these = self;
  for (; !isNil(these); )
    acc = f(acc, these.head), these = these.tail;
  return acc;
});
var reverse3 = (self) => {
  let result = empty11(), these = self;
  for (; !isNil(these); )
    result = prepend3(result, these.head), these = these.tail;
  return result;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/data.js
var ArrayProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(Array.prototype), {
  [symbol]() {
    return cached(this, array2(this));
  },
  [symbol2](that) {
    return Array.isArray(that) && this.length === that.length ? this.every((v, i) => equals(v, that[i])) : !1;
  }
}), Structural = /* @__PURE__ */ (function() {
  function Structural2(args2) {
    args2 && Object.assign(this, args2);
  }
  return Structural2.prototype = StructuralPrototype, Structural2;
})(), struct = (as8) => Object.assign(Object.create(StructuralPrototype), as8);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/differ/contextPatch.js
var ContextPatchTypeId = /* @__PURE__ */ Symbol.for("effect/DifferContextPatch");
function variance2(a) {
  return a;
}
var PatchProto = {
  ...Structural.prototype,
  [ContextPatchTypeId]: {
    _Value: variance2,
    _Patch: variance2
  }
}, EmptyProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto), {
  _tag: "Empty"
}), _empty5 = /* @__PURE__ */ Object.create(EmptyProto), empty12 = () => _empty5, AndThenProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto), {
  _tag: "AndThen"
}), makeAndThen = (first2, second) => {
  let o = Object.create(AndThenProto);
  return o.first = first2, o.second = second, o;
}, AddServiceProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto), {
  _tag: "AddService"
}), makeAddService = (key, service2) => {
  let o = Object.create(AddServiceProto);
  return o.key = key, o.service = service2, o;
}, RemoveServiceProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto), {
  _tag: "RemoveService"
}), makeRemoveService = (key) => {
  let o = Object.create(RemoveServiceProto);
  return o.key = key, o;
}, UpdateServiceProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto), {
  _tag: "UpdateService"
}), makeUpdateService = (key, update5) => {
  let o = Object.create(UpdateServiceProto);
  return o.key = key, o.update = update5, o;
}, diff = (oldValue, newValue) => {
  let missingServices = new Map(oldValue.unsafeMap), patch10 = empty12();
  for (let [tag2, newService] of newValue.unsafeMap.entries())
    if (missingServices.has(tag2)) {
      let old = missingServices.get(tag2);
      missingServices.delete(tag2), equals(old, newService) || (patch10 = combine4(makeUpdateService(tag2, () => newService))(patch10));
    } else
      missingServices.delete(tag2), patch10 = combine4(makeAddService(tag2, newService))(patch10);
  for (let [tag2] of missingServices.entries())
    patch10 = combine4(makeRemoveService(tag2))(patch10);
  return patch10;
}, combine4 = /* @__PURE__ */ dual(2, (self, that) => makeAndThen(self, that)), patch = /* @__PURE__ */ dual(2, (self, context5) => {
  if (self._tag === "Empty")
    return context5;
  let wasServiceUpdated = !1, patches = of2(self), updatedContext = new Map(context5.unsafeMap);
  for (; isNonEmpty(patches); ) {
    let head5 = headNonEmpty2(patches), tail = tailNonEmpty2(patches);
    switch (head5._tag) {
      case "Empty": {
        patches = tail;
        break;
      }
      case "AddService": {
        updatedContext.set(head5.key, head5.service), patches = tail;
        break;
      }
      case "AndThen": {
        patches = prepend2(prepend2(tail, head5.second), head5.first);
        break;
      }
      case "RemoveService": {
        updatedContext.delete(head5.key), patches = tail;
        break;
      }
      case "UpdateService": {
        updatedContext.set(head5.key, head5.update(updatedContext.get(head5.key))), wasServiceUpdated = !0, patches = tail;
        break;
      }
    }
  }
  if (!wasServiceUpdated)
    return makeContext(updatedContext);
  let map24 = /* @__PURE__ */ new Map();
  for (let [tag2] of context5.unsafeMap)
    updatedContext.has(tag2) && (map24.set(tag2, updatedContext.get(tag2)), updatedContext.delete(tag2));
  for (let [tag2, s] of updatedContext)
    map24.set(tag2, s);
  return makeContext(map24);
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/differ/hashSetPatch.js
var HashSetPatchTypeId = /* @__PURE__ */ Symbol.for("effect/DifferHashSetPatch");
function variance3(a) {
  return a;
}
var PatchProto2 = {
  ...Structural.prototype,
  [HashSetPatchTypeId]: {
    _Value: variance3,
    _Key: variance3,
    _Patch: variance3
  }
}, EmptyProto2 = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto2), {
  _tag: "Empty"
}), _empty6 = /* @__PURE__ */ Object.create(EmptyProto2), empty13 = () => _empty6, AndThenProto2 = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto2), {
  _tag: "AndThen"
}), makeAndThen2 = (first2, second) => {
  let o = Object.create(AndThenProto2);
  return o.first = first2, o.second = second, o;
}, AddProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto2), {
  _tag: "Add"
}), makeAdd = (value2) => {
  let o = Object.create(AddProto);
  return o.value = value2, o;
}, RemoveProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto2), {
  _tag: "Remove"
}), makeRemove = (value2) => {
  let o = Object.create(RemoveProto);
  return o.value = value2, o;
}, diff2 = (oldValue, newValue) => {
  let [removed, patch10] = reduce5([oldValue, empty13()], ([set9, patch11], value2) => has3(value2)(set9) ? [remove4(value2)(set9), patch11] : [set9, combine5(makeAdd(value2))(patch11)])(newValue);
  return reduce5(patch10, (patch11, value2) => combine5(makeRemove(value2))(patch11))(removed);
}, combine5 = /* @__PURE__ */ dual(2, (self, that) => makeAndThen2(self, that)), patch2 = /* @__PURE__ */ dual(2, (self, oldValue) => {
  if (self._tag === "Empty")
    return oldValue;
  let set9 = oldValue, patches = of2(self);
  for (; isNonEmpty(patches); ) {
    let head5 = headNonEmpty2(patches), tail = tailNonEmpty2(patches);
    switch (head5._tag) {
      case "Empty": {
        patches = tail;
        break;
      }
      case "AndThen": {
        patches = prepend2(head5.first)(prepend2(head5.second)(tail));
        break;
      }
      case "Add": {
        set9 = add2(head5.value)(set9), patches = tail;
        break;
      }
      case "Remove":
        set9 = remove4(head5.value)(set9), patches = tail;
    }
  }
  return set9;
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/differ/readonlyArrayPatch.js
var ReadonlyArrayPatchTypeId = /* @__PURE__ */ Symbol.for("effect/DifferReadonlyArrayPatch");
function variance4(a) {
  return a;
}
var PatchProto3 = {
  ...Structural.prototype,
  [ReadonlyArrayPatchTypeId]: {
    _Value: variance4,
    _Patch: variance4
  }
}, EmptyProto3 = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto3), {
  _tag: "Empty"
}), _empty7 = /* @__PURE__ */ Object.create(EmptyProto3), empty14 = () => _empty7, AndThenProto3 = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto3), {
  _tag: "AndThen"
}), makeAndThen3 = (first2, second) => {
  let o = Object.create(AndThenProto3);
  return o.first = first2, o.second = second, o;
}, AppendProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto3), {
  _tag: "Append"
}), makeAppend = (values3) => {
  let o = Object.create(AppendProto);
  return o.values = values3, o;
}, SliceProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto3), {
  _tag: "Slice"
}), makeSlice = (from, until) => {
  let o = Object.create(SliceProto);
  return o.from = from, o.until = until, o;
}, UpdateProto = /* @__PURE__ */ Object.assign(/* @__PURE__ */ Object.create(PatchProto3), {
  _tag: "Update"
}), makeUpdate = (index, patch10) => {
  let o = Object.create(UpdateProto);
  return o.index = index, o.patch = patch10, o;
}, diff3 = (options) => {
  let i = 0, patch10 = empty14();
  for (; i < options.oldValue.length && i < options.newValue.length; ) {
    let oldElement = options.oldValue[i], newElement = options.newValue[i], valuePatch = options.differ.diff(oldElement, newElement);
    equals(valuePatch, options.differ.empty) || (patch10 = combine6(patch10, makeUpdate(i, valuePatch))), i = i + 1;
  }
  return i < options.oldValue.length && (patch10 = combine6(patch10, makeSlice(0, i))), i < options.newValue.length && (patch10 = combine6(patch10, makeAppend(drop(i)(options.newValue)))), patch10;
}, combine6 = /* @__PURE__ */ dual(2, (self, that) => makeAndThen3(self, that)), patch3 = /* @__PURE__ */ dual(3, (self, oldValue, differ3) => {
  if (self._tag === "Empty")
    return oldValue;
  let readonlyArray2 = oldValue.slice(), patches = of(self);
  for (; isNonEmptyArray2(patches); ) {
    let head5 = headNonEmpty(patches), tail = tailNonEmpty(patches);
    switch (head5._tag) {
      case "Empty": {
        patches = tail;
        break;
      }
      case "AndThen": {
        tail.unshift(head5.first, head5.second), patches = tail;
        break;
      }
      case "Append": {
        for (let value2 of head5.values)
          readonlyArray2.push(value2);
        patches = tail;
        break;
      }
      case "Slice": {
        readonlyArray2 = readonlyArray2.slice(head5.from, head5.until), patches = tail;
        break;
      }
      case "Update": {
        readonlyArray2[head5.index] = differ3.patch(head5.patch, readonlyArray2[head5.index]), patches = tail;
        break;
      }
    }
  }
  return readonlyArray2;
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/differ.js
var DifferTypeId = /* @__PURE__ */ Symbol.for("effect/Differ"), DifferProto = {
  [DifferTypeId]: {
    _P: identity,
    _V: identity
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, make14 = (params) => {
  let differ3 = Object.create(DifferProto);
  return differ3.empty = params.empty, differ3.diff = params.diff, differ3.combine = params.combine, differ3.patch = params.patch, differ3;
}, environment = () => make14({
  empty: empty12(),
  combine: (first2, second) => combine4(second)(first2),
  diff: (oldValue, newValue) => diff(oldValue, newValue),
  patch: (patch10, oldValue) => patch(oldValue)(patch10)
});
var hashSet = () => make14({
  empty: empty13(),
  combine: (first2, second) => combine5(second)(first2),
  diff: (oldValue, newValue) => diff2(oldValue, newValue),
  patch: (patch10, oldValue) => patch2(oldValue)(patch10)
});
var readonlyArray = (differ3) => make14({
  empty: empty14(),
  combine: (first2, second) => combine6(first2, second),
  diff: (oldValue, newValue) => diff3({
    oldValue,
    newValue,
    differ: differ3
  }),
  patch: (patch10, oldValue) => patch3(patch10, oldValue, differ3)
});
var update = () => updateWith((_, a) => a), updateWith = (f) => make14({
  empty: identity,
  combine: (first2, second) => first2 === identity ? second : second === identity ? first2 : (a) => second(first2(a)),
  diff: (oldValue, newValue) => equals(oldValue, newValue) ? identity : constant(newValue),
  patch: (patch10, oldValue) => f(oldValue, patch10(oldValue))
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/runtimeFlagsPatch.js
var BIT_MASK = 255, BIT_SHIFT = 8, active = (patch10) => patch10 & BIT_MASK, enabled = (patch10) => patch10 >> BIT_SHIFT & BIT_MASK, make15 = (active2, enabled2) => (active2 & BIT_MASK) + ((enabled2 & active2 & BIT_MASK) << BIT_SHIFT), empty15 = /* @__PURE__ */ make15(0, 0), enable = (flag) => make15(flag, flag), disable = (flag) => make15(flag, 0);
var exclude = /* @__PURE__ */ dual(2, (self, flag) => make15(active(self) & ~flag, enabled(self)));
var andThen = /* @__PURE__ */ dual(2, (self, that) => self | that);
var invert = (n) => ~n >>> 0 & BIT_MASK;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/runtimeFlags.js
var None2 = 0, Interruption = 1, OpSupervision = 2, RuntimeMetrics = 4, WindDown = 16, CooperativeYielding = 32;
var cooperativeYielding = (self) => isEnabled(self, CooperativeYielding), disable2 = /* @__PURE__ */ dual(2, (self, flag) => self & ~flag);
var enable2 = /* @__PURE__ */ dual(2, (self, flag) => self | flag);
var interruptible = (self) => interruption(self) && !windDown(self), interruption = (self) => isEnabled(self, Interruption);
var isEnabled = /* @__PURE__ */ dual(2, (self, flag) => (self & flag) !== 0), make16 = (...flags) => flags.reduce((a, b) => a | b, 0), none5 = /* @__PURE__ */ make16(None2);
var runtimeMetrics = (self) => isEnabled(self, RuntimeMetrics);
var windDown = (self) => isEnabled(self, WindDown);
var diff4 = /* @__PURE__ */ dual(2, (self, that) => make15(self ^ that, that)), patch4 = /* @__PURE__ */ dual(2, (self, patch10) => self & (invert(active(patch10)) | enabled(patch10)) | active(patch10) & enabled(patch10));
var differ = /* @__PURE__ */ make14({
  empty: empty15,
  diff: (oldValue, newValue) => diff4(oldValue, newValue),
  combine: (first2, second) => andThen(second)(first2),
  patch: (_patch, oldValue) => patch4(oldValue, _patch)
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/RuntimeFlagsPatch.js
var enable3 = enable, disable3 = disable;
var exclude2 = exclude;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/blockedRequests.js
var par = (self, that) => ({
  _tag: "Par",
  left: self,
  right: that
}), seq = (self, that) => ({
  _tag: "Seq",
  left: self,
  right: that
});
var flatten2 = (self) => {
  let current = of3(self), updated = empty11();
  for (; ; ) {
    let [parallel4, sequential5] = reduce8(current, [parallelCollectionEmpty(), empty11()], ([parallel5, sequential6], blockedRequest) => {
      let [par2, seq2] = step(blockedRequest);
      return [parallelCollectionCombine(parallel5, par2), appendAll3(sequential6, seq2)];
    });
    if (updated = merge4(updated, parallel4), isNil(sequential5))
      return reverse3(updated);
    current = sequential5;
  }
  throw new Error("BUG: BlockedRequests.flatten - please report an issue at https://github.com/Effect-TS/effect/issues");
}, step = (requests) => {
  let current = requests, parallel4 = parallelCollectionEmpty(), stack = empty11(), sequential5 = empty11();
  for (; ; )
    switch (current._tag) {
      case "Empty": {
        if (isNil(stack))
          return [parallel4, sequential5];
        current = stack.head, stack = stack.tail;
        break;
      }
      case "Par": {
        stack = cons(current.right, stack), current = current.left;
        break;
      }
      case "Seq": {
        let left3 = current.left, right3 = current.right;
        switch (left3._tag) {
          case "Empty": {
            current = right3;
            break;
          }
          case "Par": {
            let l = left3.left, r = left3.right;
            current = par(seq(l, right3), seq(r, right3));
            break;
          }
          case "Seq": {
            let l = left3.left, r = left3.right;
            current = seq(l, seq(r, right3));
            break;
          }
          case "Single": {
            current = left3, sequential5 = cons(right3, sequential5);
            break;
          }
        }
        break;
      }
      case "Single": {
        if (parallel4 = parallelCollectionAdd(parallel4, current), isNil(stack))
          return [parallel4, sequential5];
        current = stack.head, stack = stack.tail;
        break;
      }
    }
  throw new Error("BUG: BlockedRequests.step - please report an issue at https://github.com/Effect-TS/effect/issues");
}, merge4 = (sequential5, parallel4) => {
  if (isNil(sequential5))
    return of3(parallelCollectionToSequentialCollection(parallel4));
  if (parallelCollectionIsEmpty(parallel4))
    return sequential5;
  let seqHeadKeys = sequentialCollectionKeys(sequential5.head), parKeys = parallelCollectionKeys(parallel4);
  return seqHeadKeys.length === 1 && parKeys.length === 1 && equals(seqHeadKeys[0], parKeys[0]) ? cons(sequentialCollectionCombine(sequential5.head, parallelCollectionToSequentialCollection(parallel4)), sequential5.tail) : cons(parallelCollectionToSequentialCollection(parallel4), sequential5);
}, EntryTypeId = /* @__PURE__ */ Symbol.for("effect/RequestBlock/Entry"), EntryImpl = class {
  request;
  result;
  listeners;
  ownerId;
  state;
  [EntryTypeId] = blockedRequestVariance;
  constructor(request, result, listeners, ownerId, state) {
    this.request = request, this.result = result, this.listeners = listeners, this.ownerId = ownerId, this.state = state;
  }
}, blockedRequestVariance = {
  /* c8 ignore next */
  _R: (_) => _
};
var RequestBlockParallelTypeId = /* @__PURE__ */ Symbol.for("effect/RequestBlock/RequestBlockParallel"), parallelVariance = {
  /* c8 ignore next */
  _R: (_) => _
}, ParallelImpl = class {
  map;
  [RequestBlockParallelTypeId] = parallelVariance;
  constructor(map24) {
    this.map = map24;
  }
}, parallelCollectionEmpty = () => new ParallelImpl(empty10());
var parallelCollectionAdd = (self, blockedRequest) => new ParallelImpl(modifyAt2(self.map, blockedRequest.dataSource, (_) => orElseSome(map2(_, append2(blockedRequest.blockedRequest)), () => of2(blockedRequest.blockedRequest)))), parallelCollectionCombine = (self, that) => new ParallelImpl(reduce7(self.map, that.map, (map24, value2, key) => set3(map24, key, match2(get7(map24, key), {
  onNone: () => value2,
  onSome: (other) => appendAll2(value2, other)
})))), parallelCollectionIsEmpty = (self) => isEmpty4(self.map), parallelCollectionKeys = (self) => Array.from(keys3(self.map)), parallelCollectionToSequentialCollection = (self) => sequentialCollectionMake(map9(self.map, (x) => of2(x))), SequentialCollectionTypeId = /* @__PURE__ */ Symbol.for("effect/RequestBlock/RequestBlockSequential"), sequentialVariance = {
  /* c8 ignore next */
  _R: (_) => _
}, SequentialImpl = class {
  map;
  [SequentialCollectionTypeId] = sequentialVariance;
  constructor(map24) {
    this.map = map24;
  }
}, sequentialCollectionMake = (map24) => new SequentialImpl(map24), sequentialCollectionCombine = (self, that) => new SequentialImpl(reduce7(that.map, self.map, (map24, value2, key) => set3(map24, key, match2(get7(map24, key), {
  onNone: () => empty3(),
  onSome: (a) => appendAll2(a, value2)
}))));
var sequentialCollectionKeys = (self) => Array.from(keys3(self.map)), sequentialCollectionToChunk = (self) => Array.from(self.map);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/deferred.js
var OP_STATE_PENDING = "Pending", OP_STATE_DONE = "Done";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/deferred.js
var DeferredSymbolKey = "effect/Deferred", DeferredTypeId = /* @__PURE__ */ Symbol.for(DeferredSymbolKey), deferredVariance = {
  /* c8 ignore next */
  _E: (_) => _,
  /* c8 ignore next */
  _A: (_) => _
}, pending = (joiners) => ({
  _tag: OP_STATE_PENDING,
  joiners
}), done = (effect3) => ({
  _tag: OP_STATE_DONE,
  effect: effect3
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/singleShotGen.js
var SingleShotGen2 = class _SingleShotGen {
  self;
  called = !1;
  constructor(self) {
    this.self = self;
  }
  next(a) {
    return this.called ? {
      value: a,
      done: !0
    } : (this.called = !0, {
      value: this.self,
      done: !1
    });
  }
  return(a) {
    return {
      value: a,
      done: !0
    };
  }
  throw(e) {
    throw e;
  }
  [Symbol.iterator]() {
    return new _SingleShotGen(this.self);
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/core.js
var blocked = (blockedRequests, _continue3) => {
  let effect3 = new EffectPrimitive("Blocked");
  return effect3.effect_instruction_i0 = blockedRequests, effect3.effect_instruction_i1 = _continue3, effect3;
}, runRequestBlock = (blockedRequests) => {
  let effect3 = new EffectPrimitive("RunBlocked");
  return effect3.effect_instruction_i0 = blockedRequests, effect3;
}, EffectTypeId2 = /* @__PURE__ */ Symbol.for("effect/Effect"), RevertFlags = class {
  patch;
  op;
  _op = OP_REVERT_FLAGS;
  constructor(patch10, op) {
    this.patch = patch10, this.op = op;
  }
}, EffectPrimitive = class {
  _op;
  effect_instruction_i0 = void 0;
  effect_instruction_i1 = void 0;
  effect_instruction_i2 = void 0;
  trace = void 0;
  [EffectTypeId2] = effectVariance;
  constructor(_op) {
    this._op = _op;
  }
  [symbol2](that) {
    return this === that;
  }
  [symbol]() {
    return cached(this, random(this));
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
  toJSON() {
    return {
      _id: "Effect",
      _op: this._op,
      effect_instruction_i0: toJSON(this.effect_instruction_i0),
      effect_instruction_i1: toJSON(this.effect_instruction_i1),
      effect_instruction_i2: toJSON(this.effect_instruction_i2)
    };
  }
  toString() {
    return format(this.toJSON());
  }
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
  [Symbol.iterator]() {
    return new SingleShotGen2(new YieldWrap(this));
  }
}, EffectPrimitiveFailure = class {
  _op;
  effect_instruction_i0 = void 0;
  effect_instruction_i1 = void 0;
  effect_instruction_i2 = void 0;
  trace = void 0;
  [EffectTypeId2] = effectVariance;
  constructor(_op) {
    this._op = _op, this._tag = _op;
  }
  [symbol2](that) {
    return exitIsExit(that) && that._op === "Failure" && // @ts-expect-error
    equals(this.effect_instruction_i0, that.effect_instruction_i0);
  }
  [symbol]() {
    return pipe(
      // @ts-expect-error
      string(this._tag),
      // @ts-expect-error
      combine(hash(this.effect_instruction_i0)),
      cached(this)
    );
  }
  get cause() {
    return this.effect_instruction_i0;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
  toJSON() {
    return {
      _id: "Exit",
      _tag: this._op,
      cause: this.cause.toJSON()
    };
  }
  toString() {
    return format(this.toJSON());
  }
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
  [Symbol.iterator]() {
    return new SingleShotGen2(new YieldWrap(this));
  }
}, EffectPrimitiveSuccess = class {
  _op;
  effect_instruction_i0 = void 0;
  effect_instruction_i1 = void 0;
  effect_instruction_i2 = void 0;
  trace = void 0;
  [EffectTypeId2] = effectVariance;
  constructor(_op) {
    this._op = _op, this._tag = _op;
  }
  [symbol2](that) {
    return exitIsExit(that) && that._op === "Success" && // @ts-expect-error
    equals(this.effect_instruction_i0, that.effect_instruction_i0);
  }
  [symbol]() {
    return pipe(
      // @ts-expect-error
      string(this._tag),
      // @ts-expect-error
      combine(hash(this.effect_instruction_i0)),
      cached(this)
    );
  }
  get value() {
    return this.effect_instruction_i0;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
  toJSON() {
    return {
      _id: "Exit",
      _tag: this._op,
      value: toJSON(this.value)
    };
  }
  toString() {
    return format(this.toJSON());
  }
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
  [Symbol.iterator]() {
    return new SingleShotGen2(new YieldWrap(this));
  }
}, isEffect = (u) => hasProperty(u, EffectTypeId2), withFiberRuntime = (withRuntime) => {
  let effect3 = new EffectPrimitive(OP_WITH_RUNTIME);
  return effect3.effect_instruction_i0 = withRuntime, effect3;
}, acquireUseRelease = /* @__PURE__ */ dual(3, (acquire, use, release2) => uninterruptibleMask((restore) => flatMap7(acquire, (a) => flatMap7(exit(suspend(() => restore(use(a)))), (exit4) => suspend(() => release2(a, exit4)).pipe(matchCauseEffect({
  onFailure: (cause2) => {
    switch (exit4._tag) {
      case OP_FAILURE:
        return failCause(sequential(exit4.effect_instruction_i0, cause2));
      case OP_SUCCESS:
        return failCause(cause2);
    }
  },
  onSuccess: () => exit4
})))))), as = /* @__PURE__ */ dual(2, (self, value2) => flatMap7(self, () => succeed(value2))), asVoid = (self) => as(self, void 0), custom = function() {
  let wrapper = new EffectPrimitive(OP_COMMIT);
  switch (arguments.length) {
    case 2: {
      wrapper.effect_instruction_i0 = arguments[0], wrapper.commit = arguments[1];
      break;
    }
    case 3: {
      wrapper.effect_instruction_i0 = arguments[0], wrapper.effect_instruction_i1 = arguments[1], wrapper.commit = arguments[2];
      break;
    }
    case 4: {
      wrapper.effect_instruction_i0 = arguments[0], wrapper.effect_instruction_i1 = arguments[1], wrapper.effect_instruction_i2 = arguments[2], wrapper.commit = arguments[3];
      break;
    }
    default:
      throw new Error(getBugErrorMessage("you're not supposed to end up here"));
  }
  return wrapper;
}, unsafeAsync = (register2, blockingOn = none4) => {
  let effect3 = new EffectPrimitive(OP_ASYNC), cancelerRef;
  return effect3.effect_instruction_i0 = (resume2) => {
    cancelerRef = register2(resume2);
  }, effect3.effect_instruction_i1 = blockingOn, onInterrupt(effect3, (_) => isEffect(cancelerRef) ? cancelerRef : void_);
}, asyncInterrupt = (register2, blockingOn = none4) => suspend(() => unsafeAsync(register2, blockingOn)), async_ = (resume2, blockingOn = none4) => custom(resume2, function() {
  let backingResume, pendingEffect;
  function proxyResume(effect4) {
    backingResume ? backingResume(effect4) : pendingEffect === void 0 && (pendingEffect = effect4);
  }
  let effect3 = new EffectPrimitive(OP_ASYNC);
  effect3.effect_instruction_i0 = (resume3) => {
    backingResume = resume3, pendingEffect && resume3(pendingEffect);
  }, effect3.effect_instruction_i1 = blockingOn;
  let cancelerRef, controllerRef;
  return this.effect_instruction_i0.length !== 1 ? (controllerRef = new AbortController(), cancelerRef = internalCall(() => this.effect_instruction_i0(proxyResume, controllerRef.signal))) : cancelerRef = internalCall(() => this.effect_instruction_i0(proxyResume)), cancelerRef || controllerRef ? onInterrupt(effect3, (_) => (controllerRef && controllerRef.abort(), cancelerRef ?? void_)) : effect3;
});
var catchAllCause = /* @__PURE__ */ dual(2, (self, f) => {
  let effect3 = new EffectPrimitive(OP_ON_FAILURE);
  return effect3.effect_instruction_i0 = self, effect3.effect_instruction_i1 = f, effect3;
}), catchAll = /* @__PURE__ */ dual(2, (self, f) => matchEffect(self, {
  onFailure: f,
  onSuccess: succeed
}));
var originalSymbol = /* @__PURE__ */ Symbol.for("effect/OriginalAnnotation");
var capture = (obj, span2) => isSome2(span2) ? new Proxy(obj, {
  has(target, p) {
    return p === spanSymbol || p === originalSymbol || p in target;
  },
  get(target, p) {
    return p === spanSymbol ? span2.value : p === originalSymbol ? obj : target[p];
  }
}) : obj, die2 = (defect) => isObject(defect) && !(spanSymbol in defect) ? withFiberRuntime((fiber) => failCause(die(capture(defect, currentSpanFromFiber(fiber))))) : failCause(die(defect)), dieMessage = (message2) => failCauseSync(() => die(new RuntimeException(message2)));
var either2 = (self) => matchEffect(self, {
  onFailure: (e) => succeed(left2(e)),
  onSuccess: (a) => succeed(right2(a))
}), exit = (self) => matchCause(self, {
  onFailure: exitFailCause,
  onSuccess: exitSucceed
}), fail2 = (error) => isObject(error) && !(spanSymbol in error) ? withFiberRuntime((fiber) => failCause(fail(capture(error, currentSpanFromFiber(fiber))))) : failCause(fail(error)), failSync = (evaluate2) => flatMap7(sync(evaluate2), fail2), failCause = (cause2) => {
  let effect3 = new EffectPrimitiveFailure(OP_FAILURE);
  return effect3.effect_instruction_i0 = cause2, effect3;
}, failCauseSync = (evaluate2) => flatMap7(sync(evaluate2), failCause), fiberId = /* @__PURE__ */ withFiberRuntime((state) => succeed(state.id())), fiberIdWith = (f) => withFiberRuntime((state) => f(state.id())), flatMap7 = /* @__PURE__ */ dual(2, (self, f) => {
  let effect3 = new EffectPrimitive(OP_ON_SUCCESS);
  return effect3.effect_instruction_i0 = self, effect3.effect_instruction_i1 = f, effect3;
});
var step2 = (self) => {
  let effect3 = new EffectPrimitive("OnStep");
  return effect3.effect_instruction_i0 = self, effect3;
}, flatten3 = (self) => flatMap7(self, identity);
var matchCause = /* @__PURE__ */ dual(2, (self, options) => matchCauseEffect(self, {
  onFailure: (cause2) => succeed(options.onFailure(cause2)),
  onSuccess: (a) => succeed(options.onSuccess(a))
})), matchCauseEffect = /* @__PURE__ */ dual(2, (self, options) => {
  let effect3 = new EffectPrimitive(OP_ON_SUCCESS_AND_FAILURE);
  return effect3.effect_instruction_i0 = self, effect3.effect_instruction_i1 = options.onFailure, effect3.effect_instruction_i2 = options.onSuccess, effect3;
}), matchEffect = /* @__PURE__ */ dual(2, (self, options) => matchCauseEffect(self, {
  onFailure: (cause2) => {
    if (defects(cause2).length > 0)
      return failCause(electFailures(cause2));
    let failures2 = failures(cause2);
    return failures2.length > 0 ? options.onFailure(unsafeHead(failures2)) : failCause(cause2);
  },
  onSuccess: options.onSuccess
})), forEachSequential = /* @__PURE__ */ dual(2, (self, f) => suspend(() => {
  let arr = fromIterable(self), ret = allocate(arr.length), i = 0;
  return as(whileLoop({
    while: () => i < arr.length,
    body: () => f(arr[i], i),
    step: (b) => {
      ret[i++] = b;
    }
  }), ret);
})), forEachSequentialDiscard = /* @__PURE__ */ dual(2, (self, f) => suspend(() => {
  let arr = fromIterable(self), i = 0;
  return whileLoop({
    while: () => i < arr.length,
    body: () => f(arr[i], i),
    step: () => {
      i++;
    }
  });
}));
var interrupt2 = /* @__PURE__ */ flatMap7(fiberId, (fiberId2) => interruptWith(fiberId2)), interruptWith = (fiberId2) => failCause(interrupt(fiberId2)), interruptible2 = (self) => {
  let effect3 = new EffectPrimitive(OP_UPDATE_RUNTIME_FLAGS);
  return effect3.effect_instruction_i0 = enable3(Interruption), effect3.effect_instruction_i1 = () => self, effect3;
};
var intoDeferred = /* @__PURE__ */ dual(2, (self, deferred) => uninterruptibleMask((restore) => flatMap7(exit(restore(self)), (exit4) => deferredDone(deferred, exit4)))), map10 = /* @__PURE__ */ dual(2, (self, f) => flatMap7(self, (a) => sync(() => f(a)))), mapBoth2 = /* @__PURE__ */ dual(2, (self, options) => matchEffect(self, {
  onFailure: (e) => failSync(() => options.onFailure(e)),
  onSuccess: (a) => sync(() => options.onSuccess(a))
})), mapError = /* @__PURE__ */ dual(2, (self, f) => matchCauseEffect(self, {
  onFailure: (cause2) => {
    let either6 = failureOrCause(cause2);
    switch (either6._tag) {
      case "Left":
        return failSync(() => f(either6.left));
      case "Right":
        return failCause(either6.right);
    }
  },
  onSuccess: succeed
}));
var onExit = /* @__PURE__ */ dual(2, (self, cleanup) => uninterruptibleMask((restore) => matchCauseEffect(restore(self), {
  onFailure: (cause1) => {
    let result = exitFailCause(cause1);
    return matchCauseEffect(cleanup(result), {
      onFailure: (cause2) => exitFailCause(sequential(cause1, cause2)),
      onSuccess: () => result
    });
  },
  onSuccess: (success) => {
    let result = exitSucceed(success);
    return zipRight(cleanup(result), result);
  }
}))), onInterrupt = /* @__PURE__ */ dual(2, (self, cleanup) => onExit(self, exitMatch({
  onFailure: (cause2) => isInterruptedOnly(cause2) ? asVoid(cleanup(interruptors(cause2))) : void_,
  onSuccess: () => void_
})));
var orDie = (self) => orDieWith(self, identity), orDieWith = /* @__PURE__ */ dual(2, (self, f) => matchEffect(self, {
  onFailure: (e) => die2(f(e)),
  onSuccess: succeed
}));
var succeed = (value2) => {
  let effect3 = new EffectPrimitiveSuccess(OP_SUCCESS);
  return effect3.effect_instruction_i0 = value2, effect3;
}, suspend = (evaluate2) => {
  let effect3 = new EffectPrimitive(OP_COMMIT);
  return effect3.commit = evaluate2, effect3;
}, sync = (thunk) => {
  let effect3 = new EffectPrimitive(OP_SYNC);
  return effect3.effect_instruction_i0 = thunk, effect3;
}, tap = /* @__PURE__ */ dual((args2) => args2.length === 3 || args2.length === 2 && !(isObject(args2[1]) && "onlyEffect" in args2[1]), (self, f) => flatMap7(self, (a) => {
  let b = typeof f == "function" ? f(a) : f;
  return isEffect(b) ? as(b, a) : isPromiseLike(b) ? unsafeAsync((resume2) => {
    b.then((_) => resume2(succeed(a)), (e) => resume2(fail2(new UnknownException(e, "An unknown error occurred in Effect.tap"))));
  }) : succeed(a);
})), transplant = (f) => withFiberRuntime((state) => {
  let scopeOverride = state.getFiberRef(currentForkScopeOverride), scope4 = pipe(scopeOverride, getOrElse(() => state.scope()));
  return f(fiberRefLocally(currentForkScopeOverride, some2(scope4)));
});
var uninterruptible = (self) => {
  let effect3 = new EffectPrimitive(OP_UPDATE_RUNTIME_FLAGS);
  return effect3.effect_instruction_i0 = disable3(Interruption), effect3.effect_instruction_i1 = () => self, effect3;
}, uninterruptibleMask = (f) => custom(f, function() {
  let effect3 = new EffectPrimitive(OP_UPDATE_RUNTIME_FLAGS);
  return effect3.effect_instruction_i0 = disable3(Interruption), effect3.effect_instruction_i1 = (oldFlags) => interruption(oldFlags) ? internalCall(() => this.effect_instruction_i0(interruptible2)) : internalCall(() => this.effect_instruction_i0(uninterruptible)), effect3;
}), void_ = /* @__PURE__ */ succeed(void 0);
var updateRuntimeFlags = (patch10) => {
  let effect3 = new EffectPrimitive(OP_UPDATE_RUNTIME_FLAGS);
  return effect3.effect_instruction_i0 = patch10, effect3.effect_instruction_i1 = void 0, effect3;
}, whenEffect = /* @__PURE__ */ dual(2, (self, condition) => flatMap7(condition, (b) => b ? pipe(self, map10(some2)) : succeed(none2()))), whileLoop = (options) => {
  let effect3 = new EffectPrimitive(OP_WHILE);
  return effect3.effect_instruction_i0 = options.while, effect3.effect_instruction_i1 = options.body, effect3.effect_instruction_i2 = options.step, effect3;
}, fromIterator = (iterator) => suspend(() => {
  let effect3 = new EffectPrimitive(OP_ITERATOR);
  return effect3.effect_instruction_i0 = iterator(), effect3;
}), gen = function() {
  let f = arguments.length === 1 ? arguments[0] : arguments[1].bind(arguments[0]);
  return fromIterator(() => f(pipe));
}, fnUntraced = (body, ...pipeables) => Object.defineProperty(pipeables.length === 0 ? function(...args2) {
  return fromIterator(() => body.apply(this, args2));
} : function(...args2) {
  let effect3 = fromIterator(() => body.apply(this, args2));
  for (let x of pipeables)
    effect3 = x(effect3, ...args2);
  return effect3;
}, "length", {
  value: body.length,
  configurable: !0
});
var withRuntimeFlags = /* @__PURE__ */ dual(2, (self, update5) => {
  let effect3 = new EffectPrimitive(OP_UPDATE_RUNTIME_FLAGS);
  return effect3.effect_instruction_i0 = update5, effect3.effect_instruction_i1 = () => self, effect3;
});
var yieldNow = (options) => {
  let effect3 = new EffectPrimitive(OP_YIELD);
  return typeof options?.priority < "u" ? withSchedulingPriority(effect3, options.priority) : effect3;
}, zip2 = /* @__PURE__ */ dual(2, (self, that) => flatMap7(self, (a) => map10(that, (b) => [a, b])));
var zipLeft = /* @__PURE__ */ dual(2, (self, that) => flatMap7(self, (a) => as(that, a))), zipRight = /* @__PURE__ */ dual(2, (self, that) => flatMap7(self, () => that)), zipWith2 = /* @__PURE__ */ dual(3, (self, that, f) => flatMap7(self, (a) => map10(that, (b) => f(a, b)))), never = /* @__PURE__ */ asyncInterrupt(() => {
  let interval = setInterval(() => {
  }, 2147483647);
  return sync(() => clearInterval(interval));
}), interruptFiber = (self) => flatMap7(fiberId, (fiberId2) => pipe(self, interruptAsFiber(fiberId2))), interruptAsFiber = /* @__PURE__ */ dual(2, (self, fiberId2) => flatMap7(self.interruptAsFork(fiberId2), () => self.await)), logLevelAll = {
  _tag: "All",
  syslog: 0,
  label: "ALL",
  ordinal: Number.MIN_SAFE_INTEGER,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, logLevelFatal = {
  _tag: "Fatal",
  syslog: 2,
  label: "FATAL",
  ordinal: 5e4,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, logLevelError = {
  _tag: "Error",
  syslog: 3,
  label: "ERROR",
  ordinal: 4e4,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, logLevelWarning = {
  _tag: "Warning",
  syslog: 4,
  label: "WARN",
  ordinal: 3e4,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, logLevelInfo = {
  _tag: "Info",
  syslog: 6,
  label: "INFO",
  ordinal: 2e4,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, logLevelDebug = {
  _tag: "Debug",
  syslog: 7,
  label: "DEBUG",
  ordinal: 1e4,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, logLevelTrace = {
  _tag: "Trace",
  syslog: 7,
  label: "TRACE",
  ordinal: 0,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, logLevelNone = {
  _tag: "None",
  syslog: 7,
  label: "OFF",
  ordinal: Number.MAX_SAFE_INTEGER,
  pipe() {
    return pipeArguments(this, arguments);
  }
};
var FiberRefSymbolKey = "effect/FiberRef", FiberRefTypeId = /* @__PURE__ */ Symbol.for(FiberRefSymbolKey), fiberRefVariance = {
  /* c8 ignore next */
  _A: (_) => _
}, fiberRefGet = (self) => withFiberRuntime((fiber) => exitSucceed(fiber.getFiberRef(self)));
var fiberRefGetWith = /* @__PURE__ */ dual(2, (self, f) => flatMap7(fiberRefGet(self), f)), fiberRefSet = /* @__PURE__ */ dual(2, (self, value2) => fiberRefModify(self, () => [void 0, value2]));
var fiberRefModify = /* @__PURE__ */ dual(2, (self, f) => withFiberRuntime((state) => {
  let [b, a] = f(state.getFiberRef(self));
  return state.setFiberRef(self, a), succeed(b);
}));
var RequestResolverSymbolKey = "effect/RequestResolver", RequestResolverTypeId = /* @__PURE__ */ Symbol.for(RequestResolverSymbolKey), requestResolverVariance = {
  /* c8 ignore next */
  _A: (_) => _,
  /* c8 ignore next */
  _R: (_) => _
}, RequestResolverImpl = class _RequestResolverImpl {
  runAll;
  target;
  [RequestResolverTypeId] = requestResolverVariance;
  constructor(runAll, target) {
    this.runAll = runAll, this.target = target;
  }
  [symbol]() {
    return cached(this, this.target ? hash(this.target) : random(this));
  }
  [symbol2](that) {
    return this.target ? isRequestResolver(that) && equals(this.target, that.target) : this === that;
  }
  identified(...ids3) {
    return new _RequestResolverImpl(this.runAll, fromIterable2(ids3));
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, isRequestResolver = (u) => hasProperty(u, RequestResolverTypeId);
var fiberRefLocally = /* @__PURE__ */ dual(3, (use, self, value2) => acquireUseRelease(zipLeft(fiberRefGet(self), fiberRefSet(self, value2)), () => use, (oldValue) => fiberRefSet(self, oldValue))), fiberRefLocallyWith = /* @__PURE__ */ dual(3, (use, self, f) => fiberRefGetWith(self, (a) => fiberRefLocally(use, self, f(a)))), fiberRefUnsafeMake = (initial2, options) => fiberRefUnsafeMakePatch(initial2, {
  differ: update(),
  fork: options?.fork ?? identity,
  join: options?.join
}), fiberRefUnsafeMakeHashSet = (initial2) => {
  let differ3 = hashSet();
  return fiberRefUnsafeMakePatch(initial2, {
    differ: differ3,
    fork: differ3.empty
  });
}, fiberRefUnsafeMakeReadonlyArray = (initial2) => {
  let differ3 = readonlyArray(update());
  return fiberRefUnsafeMakePatch(initial2, {
    differ: differ3,
    fork: differ3.empty
  });
}, fiberRefUnsafeMakeContext = (initial2) => {
  let differ3 = environment();
  return fiberRefUnsafeMakePatch(initial2, {
    differ: differ3,
    fork: differ3.empty
  });
}, fiberRefUnsafeMakePatch = (initial2, options) => ({
  ...CommitPrototype,
  [FiberRefTypeId]: fiberRefVariance,
  initial: initial2,
  commit() {
    return fiberRefGet(this);
  },
  diff: (oldValue, newValue) => options.differ.diff(oldValue, newValue),
  combine: (first2, second) => options.differ.combine(first2, second),
  patch: (patch10) => (oldValue) => options.differ.patch(patch10, oldValue),
  fork: options.fork,
  join: options.join ?? ((_, n) => n)
}), fiberRefUnsafeMakeRuntimeFlags = (initial2) => fiberRefUnsafeMakePatch(initial2, {
  differ,
  fork: differ.empty
}), currentContext = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentContext"), () => fiberRefUnsafeMakeContext(empty9())), currentSchedulingPriority = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentSchedulingPriority"), () => fiberRefUnsafeMake(0)), currentMaxOpsBeforeYield = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentMaxOpsBeforeYield"), () => fiberRefUnsafeMake(2048)), currentLogAnnotations = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentLogAnnotation"), () => fiberRefUnsafeMake(empty10())), currentLogLevel = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentLogLevel"), () => fiberRefUnsafeMake(logLevelInfo)), currentLogSpan = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentLogSpan"), () => fiberRefUnsafeMake(empty11())), withSchedulingPriority = /* @__PURE__ */ dual(2, (self, scheduler) => fiberRefLocally(self, currentSchedulingPriority, scheduler));
var currentConcurrency = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentConcurrency"), () => fiberRefUnsafeMake("unbounded")), currentRequestBatching = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentRequestBatching"), () => fiberRefUnsafeMake(!0)), currentUnhandledErrorLogLevel = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentUnhandledErrorLogLevel"), () => fiberRefUnsafeMake(some2(logLevelDebug))), currentVersionMismatchErrorLogLevel = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/versionMismatchErrorLogLevel"), () => fiberRefUnsafeMake(some2(logLevelWarning)));
var currentMetricLabels = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentMetricLabels"), () => fiberRefUnsafeMakeReadonlyArray(empty2()));
var currentForkScopeOverride = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentForkScopeOverride"), () => fiberRefUnsafeMake(none2(), {
  fork: () => none2(),
  join: (parent, _) => parent
})), currentInterruptedCause = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentInterruptedCause"), () => fiberRefUnsafeMake(empty7, {
  fork: () => empty7,
  join: (parent, _) => parent
})), currentTracerEnabled = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentTracerEnabled"), () => fiberRefUnsafeMake(!0)), currentTracerTimingEnabled = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentTracerTiming"), () => fiberRefUnsafeMake(!0)), currentTracerSpanAnnotations = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentTracerSpanAnnotations"), () => fiberRefUnsafeMake(empty10())), currentTracerSpanLinks = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentTracerSpanLinks"), () => fiberRefUnsafeMake(empty3())), ScopeTypeId = /* @__PURE__ */ Symbol.for("effect/Scope"), CloseableScopeTypeId = /* @__PURE__ */ Symbol.for("effect/CloseableScope"), scopeAddFinalizer = (self, finalizer2) => self.addFinalizer(() => asVoid(finalizer2)), scopeAddFinalizerExit = (self, finalizer2) => self.addFinalizer(finalizer2), scopeClose = (self, exit4) => self.close(exit4), scopeFork = (self, strategy) => self.fork(strategy), causeSquash = (self) => causeSquashWith(identity)(self), causeSquashWith = /* @__PURE__ */ dual(2, (self, f) => {
  let option4 = pipe(self, failureOption, map2(f));
  switch (option4._tag) {
    case "None":
      return pipe(defects(self), head2, match2({
        onNone: () => {
          let interrupts = fromIterable(interruptors(self)).flatMap((fiberId2) => fromIterable(ids2(fiberId2)).map((id2) => `#${id2}`));
          return new InterruptedException(interrupts ? `Interrupted by fibers: ${interrupts.join(", ")}` : void 0);
        },
        onSome: identity
      }));
    case "Some":
      return option4.value;
  }
}), YieldableError = /* @__PURE__ */ (function() {
  class YieldableError2 extends globalThis.Error {
    commit() {
      return fail2(this);
    }
    toJSON() {
      let obj = {
        ...this
      };
      return this.message && (obj.message = this.message), this.cause && (obj.cause = this.cause), obj;
    }
    [NodeInspectSymbol]() {
      return this.toString !== globalThis.Error.prototype.toString ? this.stack ? `${this.toString()}
${this.stack.split(`
`).slice(1).join(`
`)}` : this.toString() : "Bun" in globalThis ? pretty(fail(this), {
        renderErrorCause: !0
      }) : this;
    }
  }
  return Object.assign(YieldableError2.prototype, StructuralCommitPrototype), YieldableError2;
})(), makeException = (proto13, tag2) => {
  class Base3 extends YieldableError {
    _tag = tag2;
  }
  return Object.assign(Base3.prototype, proto13), Base3.prototype.name = tag2, Base3;
}, RuntimeExceptionTypeId = /* @__PURE__ */ Symbol.for("effect/Cause/errors/RuntimeException"), RuntimeException = /* @__PURE__ */ makeException({
  [RuntimeExceptionTypeId]: RuntimeExceptionTypeId
}, "RuntimeException");
var InterruptedExceptionTypeId = /* @__PURE__ */ Symbol.for("effect/Cause/errors/InterruptedException"), InterruptedException = /* @__PURE__ */ makeException({
  [InterruptedExceptionTypeId]: InterruptedExceptionTypeId
}, "InterruptedException"), isInterruptedException = (u) => hasProperty(u, InterruptedExceptionTypeId), IllegalArgumentExceptionTypeId = /* @__PURE__ */ Symbol.for("effect/Cause/errors/IllegalArgument"), IllegalArgumentException = /* @__PURE__ */ makeException({
  [IllegalArgumentExceptionTypeId]: IllegalArgumentExceptionTypeId
}, "IllegalArgumentException");
var NoSuchElementExceptionTypeId = /* @__PURE__ */ Symbol.for("effect/Cause/errors/NoSuchElement"), NoSuchElementException = /* @__PURE__ */ makeException({
  [NoSuchElementExceptionTypeId]: NoSuchElementExceptionTypeId
}, "NoSuchElementException");
var InvalidPubSubCapacityExceptionTypeId = /* @__PURE__ */ Symbol.for("effect/Cause/errors/InvalidPubSubCapacityException"), InvalidPubSubCapacityException = /* @__PURE__ */ makeException({
  [InvalidPubSubCapacityExceptionTypeId]: InvalidPubSubCapacityExceptionTypeId
}, "InvalidPubSubCapacityException"), ExceededCapacityExceptionTypeId = /* @__PURE__ */ Symbol.for("effect/Cause/errors/ExceededCapacityException"), ExceededCapacityException = /* @__PURE__ */ makeException({
  [ExceededCapacityExceptionTypeId]: ExceededCapacityExceptionTypeId
}, "ExceededCapacityException");
var TimeoutExceptionTypeId = /* @__PURE__ */ Symbol.for("effect/Cause/errors/Timeout"), TimeoutException = /* @__PURE__ */ makeException({
  [TimeoutExceptionTypeId]: TimeoutExceptionTypeId
}, "TimeoutException");
var UnknownExceptionTypeId = /* @__PURE__ */ Symbol.for("effect/Cause/errors/UnknownException"), UnknownException = /* @__PURE__ */ (function() {
  class UnknownException2 extends YieldableError {
    _tag = "UnknownException";
    error;
    constructor(cause2, message2) {
      super(message2 ?? "An unknown error occurred", {
        cause: cause2
      }), this.error = cause2;
    }
  }
  return Object.assign(UnknownException2.prototype, {
    [UnknownExceptionTypeId]: UnknownExceptionTypeId,
    name: "UnknownException"
  }), UnknownException2;
})();
var exitIsExit = (u) => isEffect(u) && "_tag" in u && (u._tag === "Success" || u._tag === "Failure"), exitIsFailure = (self) => self._tag === "Failure", exitIsSuccess = (self) => self._tag === "Success";
var exitAs = /* @__PURE__ */ dual(2, (self, value2) => {
  switch (self._tag) {
    case OP_FAILURE:
      return exitFailCause(self.effect_instruction_i0);
    case OP_SUCCESS:
      return exitSucceed(value2);
  }
}), exitAsVoid = (self) => exitAs(self, void 0);
var exitCollectAll = (exits, options) => exitCollectAllInternal(exits, options?.parallel ? parallel : sequential), exitDie = (defect) => exitFailCause(die(defect));
var exitFail = (error) => exitFailCause(fail(error)), exitFailCause = (cause2) => {
  let effect3 = new EffectPrimitiveFailure(OP_FAILURE);
  return effect3.effect_instruction_i0 = cause2, effect3;
}, exitFlatMap = /* @__PURE__ */ dual(2, (self, f) => {
  switch (self._tag) {
    case OP_FAILURE:
      return exitFailCause(self.effect_instruction_i0);
    case OP_SUCCESS:
      return f(self.effect_instruction_i0);
  }
});
var exitFlatten = (self) => pipe(self, exitFlatMap(identity));
var exitInterrupt = (fiberId2) => exitFailCause(interrupt(fiberId2)), exitMap = /* @__PURE__ */ dual(2, (self, f) => {
  switch (self._tag) {
    case OP_FAILURE:
      return exitFailCause(self.effect_instruction_i0);
    case OP_SUCCESS:
      return exitSucceed(f(self.effect_instruction_i0));
  }
});
var exitMatch = /* @__PURE__ */ dual(2, (self, {
  onFailure,
  onSuccess
}) => {
  switch (self._tag) {
    case OP_FAILURE:
      return onFailure(self.effect_instruction_i0);
    case OP_SUCCESS:
      return onSuccess(self.effect_instruction_i0);
  }
}), exitMatchEffect = /* @__PURE__ */ dual(2, (self, {
  onFailure,
  onSuccess
}) => {
  switch (self._tag) {
    case OP_FAILURE:
      return onFailure(self.effect_instruction_i0);
    case OP_SUCCESS:
      return onSuccess(self.effect_instruction_i0);
  }
}), exitSucceed = (value2) => {
  let effect3 = new EffectPrimitiveSuccess(OP_SUCCESS);
  return effect3.effect_instruction_i0 = value2, effect3;
}, exitVoid = /* @__PURE__ */ exitSucceed(void 0), exitZip = /* @__PURE__ */ dual(2, (self, that) => exitZipWith(self, that, {
  onSuccess: (a, a2) => [a, a2],
  onFailure: sequential
}));
var exitZipRight = /* @__PURE__ */ dual(2, (self, that) => exitZipWith(self, that, {
  onSuccess: (_, a2) => a2,
  onFailure: sequential
}));
var exitZipWith = /* @__PURE__ */ dual(3, (self, that, {
  onFailure,
  onSuccess
}) => {
  switch (self._tag) {
    case OP_FAILURE:
      switch (that._tag) {
        case OP_SUCCESS:
          return exitFailCause(self.effect_instruction_i0);
        case OP_FAILURE:
          return exitFailCause(onFailure(self.effect_instruction_i0, that.effect_instruction_i0));
      }
    case OP_SUCCESS:
      switch (that._tag) {
        case OP_SUCCESS:
          return exitSucceed(onSuccess(self.effect_instruction_i0, that.effect_instruction_i0));
        case OP_FAILURE:
          return exitFailCause(that.effect_instruction_i0);
      }
  }
}), exitCollectAllInternal = (exits, combineCauses) => {
  let list = fromIterable2(exits);
  return isNonEmpty(list) ? pipe(tailNonEmpty2(list), reduce(pipe(headNonEmpty2(list), exitMap(of2)), (accumulator, current) => pipe(accumulator, exitZipWith(current, {
    onSuccess: (list2, value2) => pipe(list2, prepend2(value2)),
    onFailure: combineCauses
  }))), exitMap(reverse2), exitMap((chunk3) => toReadonlyArray(chunk3)), some2) : none2();
}, deferredUnsafeMake = (fiberId2) => ({
  ...CommitPrototype,
  [DeferredTypeId]: deferredVariance,
  state: make11(pending([])),
  commit() {
    return deferredAwait(this);
  },
  blockingOn: fiberId2
}), deferredMake = () => flatMap7(fiberId, (id2) => deferredMakeAs(id2)), deferredMakeAs = (fiberId2) => sync(() => deferredUnsafeMake(fiberId2)), deferredAwait = (self) => asyncInterrupt((resume2) => {
  let state = get6(self.state);
  switch (state._tag) {
    case OP_STATE_DONE:
      return resume2(state.effect);
    case OP_STATE_PENDING:
      return state.joiners.push(resume2), deferredInterruptJoiner(self, resume2);
  }
}, self.blockingOn);
var deferredCompleteWith = /* @__PURE__ */ dual(2, (self, effect3) => sync(() => {
  let state = get6(self.state);
  switch (state._tag) {
    case OP_STATE_DONE:
      return !1;
    case OP_STATE_PENDING: {
      set2(self.state, done(effect3));
      for (let i = 0, len = state.joiners.length; i < len; i++)
        state.joiners[i](effect3);
      return !0;
    }
  }
})), deferredDone = /* @__PURE__ */ dual(2, (self, exit4) => deferredCompleteWith(self, exit4));
var deferredFailCause = /* @__PURE__ */ dual(2, (self, cause2) => deferredCompleteWith(self, failCause(cause2)));
var deferredInterruptWith = /* @__PURE__ */ dual(2, (self, fiberId2) => deferredCompleteWith(self, interruptWith(fiberId2))), deferredIsDone = (self) => sync(() => get6(self.state)._tag === OP_STATE_DONE);
var deferredSucceed = /* @__PURE__ */ dual(2, (self, value2) => deferredCompleteWith(self, succeed(value2)));
var deferredUnsafeDone = (self, effect3) => {
  let state = get6(self.state);
  if (state._tag === OP_STATE_PENDING) {
    set2(self.state, done(effect3));
    for (let i = 0, len = state.joiners.length; i < len; i++)
      state.joiners[i](effect3);
  }
}, deferredInterruptJoiner = (self, joiner) => sync(() => {
  let state = get6(self.state);
  if (state._tag === OP_STATE_PENDING) {
    let index = state.joiners.indexOf(joiner);
    index >= 0 && state.joiners.splice(index, 1);
  }
}), constContext = /* @__PURE__ */ withFiberRuntime((fiber) => exitSucceed(fiber.currentContext)), context = () => constContext;
var contextWithEffect = (f) => flatMap7(context(), f), provideContext = /* @__PURE__ */ dual(2, (self, context5) => fiberRefLocally(currentContext, context5)(self)), provideSomeContext = /* @__PURE__ */ dual(2, (self, context5) => fiberRefLocallyWith(currentContext, (parent) => merge3(parent, context5))(self)), mapInputContext = /* @__PURE__ */ dual(2, (self, f) => contextWithEffect((context5) => provideContext(self, f(context5))));
var currentSpanFromFiber = (fiber) => {
  let span2 = fiber.currentSpan;
  return span2 !== void 0 && span2._tag === "Span" ? some2(span2) : none2();
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/clock.js
var ClockSymbolKey = "effect/Clock", ClockTypeId = /* @__PURE__ */ Symbol.for(ClockSymbolKey), clockTag = /* @__PURE__ */ GenericTag("effect/Clock"), MAX_TIMER_MILLIS = 2 ** 31 - 1, globalClockScheduler = {
  unsafeSchedule(task, duration3) {
    let millis2 = toMillis(duration3);
    if (millis2 > MAX_TIMER_MILLIS)
      return constFalse;
    let completed = !1, handle = setTimeout(() => {
      completed = !0, task();
    }, millis2);
    return () => (clearTimeout(handle), !completed);
  }
}, performanceNowNanos = /* @__PURE__ */ (function() {
  let bigint1e62 = /* @__PURE__ */ BigInt(1e6);
  if (typeof performance > "u" || typeof performance.now != "function")
    return () => BigInt(Date.now()) * bigint1e62;
  let origin;
  return () => (origin === void 0 && (origin = BigInt(Date.now()) * bigint1e62 - BigInt(Math.round(performance.now() * 1e6))), origin + BigInt(Math.round(performance.now() * 1e6)));
})(), processOrPerformanceNow = /* @__PURE__ */ (function() {
  let processHrtime = typeof process == "object" && "hrtime" in process && typeof process.hrtime.bigint == "function" ? process.hrtime : void 0;
  if (!processHrtime)
    return performanceNowNanos;
  let origin = /* @__PURE__ */ performanceNowNanos() - /* @__PURE__ */ processHrtime.bigint();
  return () => origin + processHrtime.bigint();
})(), ClockImpl = class {
  [ClockTypeId] = ClockTypeId;
  unsafeCurrentTimeMillis() {
    return Date.now();
  }
  unsafeCurrentTimeNanos() {
    return processOrPerformanceNow();
  }
  currentTimeMillis = /* @__PURE__ */ sync(() => this.unsafeCurrentTimeMillis());
  currentTimeNanos = /* @__PURE__ */ sync(() => this.unsafeCurrentTimeNanos());
  scheduler() {
    return succeed(globalClockScheduler);
  }
  sleep(duration3) {
    return async_((resume2) => {
      let canceler = globalClockScheduler.unsafeSchedule(() => resume2(void_), duration3);
      return asVoid(sync(canceler));
    });
  }
}, make18 = () => new ClockImpl();

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Number.js
var Order2 = number3;
var nextPow2 = (n) => {
  let nextPow = Math.ceil(Math.log(n) / Math.log(2));
  return Math.max(Math.pow(2, nextPow), 2);
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/RegExp.js
var escape = (string4) => string4.replace(/[/\\^$*+?.()|[\]{}]/g, "\\$&");

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/configError.js
var OP_INVALID_DATA = "InvalidData", OP_MISSING_DATA = "MissingData", OP_SOURCE_UNAVAILABLE = "SourceUnavailable", OP_UNSUPPORTED = "Unsupported";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/configError.js
var ConfigErrorSymbolKey = "effect/ConfigError", ConfigErrorTypeId = /* @__PURE__ */ Symbol.for(ConfigErrorSymbolKey), proto2 = {
  _tag: "ConfigError",
  [ConfigErrorTypeId]: ConfigErrorTypeId
}, And = (self, that) => {
  let error = Object.create(proto2);
  return error._op = "And", error.left = self, error.right = that, Object.defineProperty(error, "toString", {
    enumerable: !1,
    value() {
      return `${this.left} and ${this.right}`;
    }
  }), Object.defineProperty(error, "message", {
    enumerable: !1,
    get() {
      return this.toString();
    }
  }), error;
}, Or = (self, that) => {
  let error = Object.create(proto2);
  return error._op = "Or", error.left = self, error.right = that, Object.defineProperty(error, "toString", {
    enumerable: !1,
    value() {
      return `${this.left} or ${this.right}`;
    }
  }), Object.defineProperty(error, "message", {
    enumerable: !1,
    get() {
      return this.toString();
    }
  }), error;
}, InvalidData = (path, message2, options = {
  pathDelim: "."
}) => {
  let error = Object.create(proto2);
  return error._op = OP_INVALID_DATA, error.path = path, error.message = message2, Object.defineProperty(error, "toString", {
    enumerable: !1,
    value() {
      return `(Invalid data at ${pipe(this.path, join(options.pathDelim))}: "${this.message}")`;
    }
  }), error;
}, MissingData = (path, message2, options = {
  pathDelim: "."
}) => {
  let error = Object.create(proto2);
  return error._op = OP_MISSING_DATA, error.path = path, error.message = message2, Object.defineProperty(error, "toString", {
    enumerable: !1,
    value() {
      return `(Missing data at ${pipe(this.path, join(options.pathDelim))}: "${this.message}")`;
    }
  }), error;
}, SourceUnavailable = (path, message2, cause2, options = {
  pathDelim: "."
}) => {
  let error = Object.create(proto2);
  return error._op = OP_SOURCE_UNAVAILABLE, error.path = path, error.message = message2, error.cause = cause2, Object.defineProperty(error, "toString", {
    enumerable: !1,
    value() {
      return `(Source unavailable at ${pipe(this.path, join(options.pathDelim))}: "${this.message}")`;
    }
  }), error;
}, Unsupported = (path, message2, options = {
  pathDelim: "."
}) => {
  let error = Object.create(proto2);
  return error._op = OP_UNSUPPORTED, error.path = path, error.message = message2, Object.defineProperty(error, "toString", {
    enumerable: !1,
    value() {
      return `(Unsupported operation at ${pipe(this.path, join(options.pathDelim))}: "${this.message}")`;
    }
  }), error;
};
var prefixed = /* @__PURE__ */ dual(2, (self, prefix) => {
  switch (self._op) {
    case "And":
      return And(prefixed(self.left, prefix), prefixed(self.right, prefix));
    case "Or":
      return Or(prefixed(self.left, prefix), prefixed(self.right, prefix));
    case OP_INVALID_DATA:
      return InvalidData([...prefix, ...self.path], self.message);
    case OP_MISSING_DATA:
      return MissingData([...prefix, ...self.path], self.message);
    case OP_SOURCE_UNAVAILABLE:
      return SourceUnavailable([...prefix, ...self.path], self.message, self.cause);
    case OP_UNSUPPORTED:
      return Unsupported([...prefix, ...self.path], self.message);
  }
}), IsMissingDataOnlyReducer = {
  andCase: (_, left3, right3) => left3 && right3,
  orCase: (_, left3, right3) => left3 && right3,
  invalidDataCase: constFalse,
  missingDataCase: constTrue,
  sourceUnavailableCase: constFalse,
  unsupportedCase: constFalse
}, reduceWithContext2 = /* @__PURE__ */ dual(3, (self, context5, reducer) => {
  let input2 = [self], output = [];
  for (; input2.length > 0; ) {
    let error = input2.pop();
    switch (error._op) {
      case "And": {
        input2.push(error.right), input2.push(error.left), output.push(left2({
          _op: "AndCase"
        }));
        break;
      }
      case "Or": {
        input2.push(error.right), input2.push(error.left), output.push(left2({
          _op: "OrCase"
        }));
        break;
      }
      case OP_INVALID_DATA: {
        output.push(right2(reducer.invalidDataCase(context5, error.path, error.message)));
        break;
      }
      case OP_MISSING_DATA: {
        output.push(right2(reducer.missingDataCase(context5, error.path, error.message)));
        break;
      }
      case OP_SOURCE_UNAVAILABLE: {
        output.push(right2(reducer.sourceUnavailableCase(context5, error.path, error.message, error.cause)));
        break;
      }
      case OP_UNSUPPORTED: {
        output.push(right2(reducer.unsupportedCase(context5, error.path, error.message)));
        break;
      }
    }
  }
  let accumulator = [];
  for (; output.length > 0; ) {
    let either6 = output.pop();
    switch (either6._op) {
      case "Left": {
        switch (either6.left._op) {
          case "AndCase": {
            let left3 = accumulator.pop(), right3 = accumulator.pop(), value2 = reducer.andCase(context5, left3, right3);
            accumulator.push(value2);
            break;
          }
          case "OrCase": {
            let left3 = accumulator.pop(), right3 = accumulator.pop(), value2 = reducer.orCase(context5, left3, right3);
            accumulator.push(value2);
            break;
          }
        }
        break;
      }
      case "Right": {
        accumulator.push(either6.right);
        break;
      }
    }
  }
  if (accumulator.length === 0)
    throw new Error("BUG: ConfigError.reduceWithContext - please report an issue at https://github.com/Effect-TS/effect/issues");
  return accumulator.pop();
}), isMissingDataOnly = (self) => reduceWithContext2(self, void 0, IsMissingDataOnlyReducer);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/configProvider/pathPatch.js
var empty16 = {
  _tag: "Empty"
};
var patch5 = /* @__PURE__ */ dual(2, (path, patch10) => {
  let input2 = of3(patch10), output = path;
  for (; isCons(input2); ) {
    let patch11 = input2.head;
    switch (patch11._tag) {
      case "Empty": {
        input2 = input2.tail;
        break;
      }
      case "AndThen": {
        input2 = cons(patch11.first, cons(patch11.second, input2.tail));
        break;
      }
      case "MapName": {
        output = map3(output, patch11.f), input2 = input2.tail;
        break;
      }
      case "Nested": {
        output = prepend(output, patch11.name), input2 = input2.tail;
        break;
      }
      case "Unnested": {
        if (pipe(head(output), contains(patch11.name)))
          output = tailNonEmpty(output), input2 = input2.tail;
        else
          return left2(MissingData(output, `Expected ${patch11.name} to be in path in ConfigProvider#unnested`));
        break;
      }
    }
  }
  return right2(output);
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/config.js
var OP_CONSTANT = "Constant", OP_FAIL2 = "Fail", OP_FALLBACK = "Fallback", OP_DESCRIBED = "Described", OP_LAZY = "Lazy", OP_MAP_OR_FAIL = "MapOrFail", OP_NESTED = "Nested", OP_PRIMITIVE = "Primitive", OP_REDACTED = "Redacted", OP_SEQUENCE = "Sequence", OP_HASHMAP = "HashMap", OP_ZIP_WITH = "ZipWith";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/configProvider.js
var concat = (l, r) => [...l, ...r], ConfigProviderSymbolKey = "effect/ConfigProvider", ConfigProviderTypeId = /* @__PURE__ */ Symbol.for(ConfigProviderSymbolKey), configProviderTag = /* @__PURE__ */ GenericTag("effect/ConfigProvider"), FlatConfigProviderSymbolKey = "effect/ConfigProviderFlat", FlatConfigProviderTypeId = /* @__PURE__ */ Symbol.for(FlatConfigProviderSymbolKey), make20 = (options) => ({
  [ConfigProviderTypeId]: ConfigProviderTypeId,
  pipe() {
    return pipeArguments(this, arguments);
  },
  ...options
}), makeFlat = (options) => ({
  [FlatConfigProviderTypeId]: FlatConfigProviderTypeId,
  patch: options.patch,
  load: (path, config3, split2 = !0) => options.load(path, config3, split2),
  enumerateChildren: options.enumerateChildren
}), fromFlat = (flat) => make20({
  load: (config3) => flatMap7(fromFlatLoop(flat, empty2(), config3, !1), (chunk3) => match2(head(chunk3), {
    onNone: () => fail2(MissingData(empty2(), `Expected a single value having structure: ${config3}`)),
    onSome: succeed
  })),
  flattened: flat
}), fromEnv = (options) => {
  let {
    pathDelim,
    seqDelim
  } = Object.assign({}, {
    pathDelim: "_",
    seqDelim: ","
  }, options), makePathString = (path) => pipe(path, join(pathDelim)), unmakePathString = (pathString) => pathString.split(pathDelim), getEnv = () => typeof process < "u" && "env" in process && typeof process.env == "object" ? process.env : {};
  return fromFlat(makeFlat({
    load: (path, primitive2, split2 = !0) => {
      let pathString = makePathString(path), current = getEnv(), valueOpt = pathString in current ? some2(current[pathString]) : none2();
      return pipe(valueOpt, mapError(() => MissingData(path, `Expected ${pathString} to exist in the process context`)), flatMap7((value2) => parsePrimitive(value2, path, primitive2, seqDelim, split2)));
    },
    enumerateChildren: (path) => sync(() => {
      let current = getEnv(), filteredKeyPaths = Object.keys(current).map((value2) => unmakePathString(value2.toUpperCase())).filter((keyPath) => {
        for (let i = 0; i < path.length; i++) {
          let pathComponent = pipe(path, unsafeGet(i)), currentElement = keyPath[i];
          if (currentElement === void 0 || pathComponent !== currentElement)
            return !1;
        }
        return !0;
      }).flatMap((keyPath) => keyPath.slice(path.length, path.length + 1));
      return fromIterable5(filteredKeyPaths);
    }),
    patch: empty16
  }));
};
var extend = (leftDef, rightDef, left3, right3) => {
  let leftPad = unfold(left3.length, (index) => index >= right3.length ? none2() : some2([leftDef(index), index + 1])), rightPad = unfold(right3.length, (index) => index >= left3.length ? none2() : some2([rightDef(index), index + 1])), leftExtension = concat(left3, leftPad), rightExtension = concat(right3, rightPad);
  return [leftExtension, rightExtension];
}, appendConfigPath = (path, config3) => {
  let op = config3;
  if (op._tag === "Nested") {
    let out = path.slice();
    for (; op._tag === "Nested"; )
      out.push(op.name), op = op.config;
    return out;
  }
  return path;
}, RedactedConfigErrorReducer = {
  andCase: (_, left3, right3) => And(left3, right3),
  orCase: (_, left3, right3) => Or(left3, right3),
  invalidDataCase: (_, path) => InvalidData(path, "<redacted>"),
  missingDataCase: (_, path) => MissingData(path, "<redacted>"),
  sourceUnavailableCase: (_, path, _message, cause2) => SourceUnavailable(path, "<redacted>", cause2),
  unsupportedCase: (_, path) => Unsupported(path, "<redacted>")
}, redactConfigError = (error) => reduceWithContext2(error, void 0, RedactedConfigErrorReducer), fromFlatLoop = (flat, prefix, config3, split2) => {
  let op = config3;
  switch (op._tag) {
    case OP_CONSTANT:
      return succeed(of(op.value));
    case OP_DESCRIBED:
      return suspend(() => fromFlatLoop(flat, prefix, op.config, split2));
    case OP_FAIL2:
      return fail2(MissingData(prefix, op.message));
    case OP_FALLBACK:
      return pipe(suspend(() => fromFlatLoop(flat, prefix, op.first, split2)), catchAll((error1) => op.condition(error1) ? pipe(fromFlatLoop(flat, prefix, op.second, split2), catchAll((error2) => fail2(Or(error1, error2)))) : fail2(error1)));
    case OP_LAZY:
      return suspend(() => fromFlatLoop(flat, prefix, op.config(), split2));
    case OP_MAP_OR_FAIL:
      return suspend(() => pipe(fromFlatLoop(flat, prefix, op.original, split2), flatMap7(forEachSequential((a) => pipe(op.mapOrFail(a), mapError(prefixed(appendConfigPath(prefix, op.original))))))));
    case OP_NESTED:
      return suspend(() => fromFlatLoop(flat, concat(prefix, of(op.name)), op.config, split2));
    case OP_PRIMITIVE:
      return pipe(patch5(prefix, flat.patch), flatMap7((prefix2) => pipe(flat.load(prefix2, op, split2), flatMap7((values3) => {
        if (values3.length === 0) {
          let name = pipe(last(prefix2), getOrElse(() => "<n/a>"));
          return fail2(MissingData([], `Expected ${op.description} with name ${name}`));
        }
        return succeed(values3);
      }))));
    case OP_REDACTED:
      return suspend(() => pipe(fromFlatLoop(flat, prefix, op.original, split2), mapError(redactConfigError), map10(map3(op.redact))));
    case OP_SEQUENCE:
      return pipe(patch5(prefix, flat.patch), flatMap7((patchedPrefix) => pipe(flat.enumerateChildren(patchedPrefix), flatMap7(indicesFrom), flatMap7((indices) => indices.length === 0 ? suspend(() => map10(fromFlatLoop(flat, prefix, op.config, !0), of)) : pipe(forEachSequential(indices, (index) => fromFlatLoop(flat, append(prefix, `[${index}]`), op.config, !0)), map10((chunkChunk) => {
        let flattened = flatten(chunkChunk);
        return flattened.length === 0 ? of(empty2()) : of(flattened);
      }))))));
    case OP_HASHMAP:
      return suspend(() => pipe(patch5(prefix, flat.patch), flatMap7((prefix2) => pipe(flat.enumerateChildren(prefix2), flatMap7((keys7) => pipe(keys7, forEachSequential((key) => fromFlatLoop(flat, concat(prefix2, of(key)), op.valueConfig, split2)), map10((matrix) => matrix.length === 0 ? of(empty10()) : pipe(transpose(matrix), map3((values3) => fromIterable6(zip(fromIterable(keys7), values3)))))))))));
    case OP_ZIP_WITH:
      return suspend(() => pipe(fromFlatLoop(flat, prefix, op.left, split2), either2, flatMap7((left3) => pipe(fromFlatLoop(flat, prefix, op.right, split2), either2, flatMap7((right3) => {
        if (isLeft2(left3) && isLeft2(right3))
          return fail2(And(left3.left, right3.left));
        if (isLeft2(left3) && isRight2(right3))
          return fail2(left3.left);
        if (isRight2(left3) && isLeft2(right3))
          return fail2(right3.left);
        if (isRight2(left3) && isRight2(right3)) {
          let path = pipe(prefix, join(".")), fail13 = fromFlatLoopFail(prefix, path), [lefts, rights] = extend(fail13, fail13, pipe(left3.right, map3(right2)), pipe(right3.right, map3(right2)));
          return pipe(lefts, zip(rights), forEachSequential(([left4, right4]) => pipe(zip2(left4, right4), map10(([left5, right5]) => op.zip(left5, right5)))));
        }
        throw new Error("BUG: ConfigProvider.fromFlatLoop - please report an issue at https://github.com/Effect-TS/effect/issues");
      })))));
  }
}, fromFlatLoopFail = (prefix, path) => (index) => left2(MissingData(prefix, `The element at index ${index} in a sequence at path "${path}" was missing`));
var splitPathString = (text3, delim) => text3.split(new RegExp(`\\s*${escape(delim)}\\s*`)), parsePrimitive = (text3, path, primitive2, delimiter, split2) => split2 ? pipe(splitPathString(text3, delimiter), forEachSequential((char) => primitive2.parse(char.trim())), mapError(prefixed(path))) : pipe(primitive2.parse(text3), mapBoth2({
  onFailure: prefixed(path),
  onSuccess: of
})), transpose = (array5) => Object.keys(array5[0]).map((column) => array5.map((row) => row[column])), indicesFrom = (quotedIndices) => pipe(forEachSequential(quotedIndices, parseQuotedIndex), mapBoth2({
  onFailure: () => empty2(),
  onSuccess: sort(Order2)
}), either2, map10(merge));
var QUOTED_INDEX_REGEX = /^(\[(\d+)\])$/, parseQuotedIndex = (str) => {
  let match14 = str.match(QUOTED_INDEX_REGEX);
  if (match14 !== null) {
    let matchedIndex = match14[2];
    return pipe(matchedIndex !== void 0 && matchedIndex.length > 0 ? some2(matchedIndex) : none2(), flatMap(parseInteger));
  }
  return none2();
};
var parseInteger = (str) => {
  let parsedIndex = Number.parseInt(str);
  return Number.isNaN(parsedIndex) ? none2() : some2(parsedIndex);
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/defaultServices/console.js
var TypeId8 = /* @__PURE__ */ Symbol.for("effect/Console"), consoleTag = /* @__PURE__ */ GenericTag("effect/Console"), defaultConsole = {
  [TypeId8]: TypeId8,
  assert(condition, ...args2) {
    return sync(() => {
      console.assert(condition, ...args2);
    });
  },
  clear: /* @__PURE__ */ sync(() => {
    console.clear();
  }),
  count(label) {
    return sync(() => {
      console.count(label);
    });
  },
  countReset(label) {
    return sync(() => {
      console.countReset(label);
    });
  },
  debug(...args2) {
    return sync(() => {
      console.debug(...args2);
    });
  },
  dir(item, options) {
    return sync(() => {
      console.dir(item, options);
    });
  },
  dirxml(...args2) {
    return sync(() => {
      console.dirxml(...args2);
    });
  },
  error(...args2) {
    return sync(() => {
      console.error(...args2);
    });
  },
  group(options) {
    return options?.collapsed ? sync(() => console.groupCollapsed(options?.label)) : sync(() => console.group(options?.label));
  },
  groupEnd: /* @__PURE__ */ sync(() => {
    console.groupEnd();
  }),
  info(...args2) {
    return sync(() => {
      console.info(...args2);
    });
  },
  log(...args2) {
    return sync(() => {
      console.log(...args2);
    });
  },
  table(tabularData, properties) {
    return sync(() => {
      console.table(tabularData, properties);
    });
  },
  time(label) {
    return sync(() => console.time(label));
  },
  timeEnd(label) {
    return sync(() => console.timeEnd(label));
  },
  timeLog(label, ...args2) {
    return sync(() => {
      console.timeLog(label, ...args2);
    });
  },
  trace(...args2) {
    return sync(() => {
      console.trace(...args2);
    });
  },
  warn(...args2) {
    return sync(() => {
      console.warn(...args2);
    });
  },
  unsafe: console
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/random.js
var RandomSymbolKey = "effect/Random", RandomTypeId = /* @__PURE__ */ Symbol.for(RandomSymbolKey), randomTag = /* @__PURE__ */ GenericTag("effect/Random"), RandomImpl = class {
  seed;
  [RandomTypeId] = RandomTypeId;
  PRNG;
  constructor(seed) {
    this.seed = seed, this.PRNG = new PCGRandom(seed);
  }
  get next() {
    return sync(() => this.PRNG.number());
  }
  get nextBoolean() {
    return map10(this.next, (n) => n > 0.5);
  }
  get nextInt() {
    return sync(() => this.PRNG.integer(Number.MAX_SAFE_INTEGER));
  }
  nextRange(min4, max6) {
    return map10(this.next, (n) => (max6 - min4) * n + min4);
  }
  nextIntBetween(min4, max6) {
    return sync(() => this.PRNG.integer(max6 - min4) + min4);
  }
  shuffle(elements) {
    return shuffleWith(elements, (n) => this.nextIntBetween(0, n));
  }
}, shuffleWith = (elements, nextIntBounded) => suspend(() => pipe(sync(() => Array.from(elements)), flatMap7((buffer2) => {
  let numbers = [];
  for (let i = buffer2.length; i >= 2; i = i - 1)
    numbers.push(i);
  return pipe(numbers, forEachSequentialDiscard((n) => pipe(nextIntBounded(n), map10((k) => swap(buffer2, n - 1, k)))), as(fromIterable2(buffer2)));
}))), swap = (buffer2, index1, index2) => {
  let tmp = buffer2[index1];
  return buffer2[index1] = buffer2[index2], buffer2[index2] = tmp, buffer2;
}, make21 = (seed) => new RandomImpl(hash(seed)), FixedRandomImpl = class {
  values;
  [RandomTypeId] = RandomTypeId;
  index = 0;
  constructor(values3) {
    if (this.values = values3, values3.length === 0)
      throw new Error("Requires at least one value");
  }
  getNextValue() {
    let value2 = this.values[this.index];
    return this.index = (this.index + 1) % this.values.length, value2;
  }
  get next() {
    return sync(() => {
      let value2 = this.getNextValue();
      return typeof value2 == "number" ? Math.max(0, Math.min(1, value2)) : hash(value2) / 2147483647;
    });
  }
  get nextBoolean() {
    return sync(() => {
      let value2 = this.getNextValue();
      return typeof value2 == "boolean" ? value2 : hash(value2) % 2 === 0;
    });
  }
  get nextInt() {
    return sync(() => {
      let value2 = this.getNextValue();
      return typeof value2 == "number" && Number.isFinite(value2) ? Math.round(value2) : Math.abs(hash(value2));
    });
  }
  nextRange(min4, max6) {
    return map10(this.next, (n) => (max6 - min4) * n + min4);
  }
  nextIntBetween(min4, max6) {
    return sync(() => {
      let value2 = this.getNextValue();
      if (typeof value2 == "number" && Number.isFinite(value2))
        return Math.max(min4, Math.min(max6 - 1, Math.round(value2)));
      let hash2 = Math.abs(hash(value2));
      return min4 + hash2 % (max6 - min4);
    });
  }
  shuffle(elements) {
    return shuffleWith(elements, (n) => this.nextIntBetween(0, n));
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/tracer.js
var TracerTypeId = /* @__PURE__ */ Symbol.for("effect/Tracer"), make22 = (options) => ({
  [TracerTypeId]: TracerTypeId,
  ...options
}), tracerTag = /* @__PURE__ */ GenericTag("effect/Tracer"), spanTag = /* @__PURE__ */ GenericTag("effect/ParentSpan"), randomHexString = /* @__PURE__ */ (function() {
  let characters = "abcdef0123456789", charactersLength = characters.length;
  return function(length3) {
    let result = "";
    for (let i = 0; i < length3; i++)
      result += characters.charAt(Math.floor(Math.random() * charactersLength));
    return result;
  };
})(), NativeSpan = class {
  name;
  parent;
  context;
  startTime;
  kind;
  _tag = "Span";
  spanId;
  traceId = "native";
  sampled = !0;
  status;
  attributes;
  events = [];
  links;
  constructor(name, parent, context5, links, startTime, kind) {
    this.name = name, this.parent = parent, this.context = context5, this.startTime = startTime, this.kind = kind, this.status = {
      _tag: "Started",
      startTime
    }, this.attributes = /* @__PURE__ */ new Map(), this.traceId = parent._tag === "Some" ? parent.value.traceId : randomHexString(32), this.spanId = randomHexString(16), this.links = Array.from(links);
  }
  end(endTime, exit4) {
    this.status = {
      _tag: "Ended",
      endTime,
      exit: exit4,
      startTime: this.status.startTime
    };
  }
  attribute(key, value2) {
    this.attributes.set(key, value2);
  }
  event(name, startTime, attributes) {
    this.events.push([name, startTime, attributes ?? {}]);
  }
  addLinks(links) {
    this.links.push(...links);
  }
}, nativeTracer = /* @__PURE__ */ make22({
  span: (name, parent, context5, links, startTime, kind) => new NativeSpan(name, parent, context5, links, startTime, kind),
  context: (f) => f()
});
var DisablePropagation = /* @__PURE__ */ Reference2()("effect/Tracer/DisablePropagation", {
  defaultValue: constFalse
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/defaultServices.js
var liveServices = /* @__PURE__ */ pipe(/* @__PURE__ */ empty9(), /* @__PURE__ */ add4(clockTag, /* @__PURE__ */ make18()), /* @__PURE__ */ add4(consoleTag, defaultConsole), /* @__PURE__ */ add4(randomTag, /* @__PURE__ */ make21(/* @__PURE__ */ Math.random())), /* @__PURE__ */ add4(configProviderTag, /* @__PURE__ */ fromEnv()), /* @__PURE__ */ add4(tracerTag, nativeTracer)), currentServices = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/DefaultServices/currentServices"), () => fiberRefUnsafeMakeContext(liveServices)), sleep = (duration3) => {
  let decodedDuration = decode(duration3);
  return clockWith((clock3) => clock3.sleep(decodedDuration));
}, defaultServicesWith = (f) => withFiberRuntime((fiber) => f(fiber.currentDefaultServices)), clockWith = (f) => defaultServicesWith((services) => f(services.unsafeMap.get(clockTag.key))), currentTimeMillis = /* @__PURE__ */ clockWith((clock3) => clock3.currentTimeMillis);
var configProviderWith = (f) => defaultServicesWith((services) => f(services.unsafeMap.get(configProviderTag.key))), config = (config3) => configProviderWith((_) => _.load(config3));
var randomWith = (f) => defaultServicesWith((services) => f(services.unsafeMap.get(randomTag.key)));
var next = /* @__PURE__ */ randomWith((random3) => random3.next);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Effectable.js
var EffectPrototype2 = EffectPrototype;
var Base2 = Base;
var Class2 = class extends Base2 {
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/executionStrategy.js
var OP_SEQUENTIAL2 = "Sequential", OP_PARALLEL2 = "Parallel", OP_PARALLEL_N = "ParallelN", sequential2 = {
  _tag: OP_SEQUENTIAL2
}, parallel2 = {
  _tag: OP_PARALLEL2
}, parallelN = (parallelism) => ({
  _tag: OP_PARALLEL_N,
  parallelism
}), isSequential = (self) => self._tag === OP_SEQUENTIAL2, isParallel = (self) => self._tag === OP_PARALLEL2;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/ExecutionStrategy.js
var sequential3 = sequential2, parallel3 = parallel2, parallelN2 = parallelN;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/fiberRefs.js
function unsafeMake4(fiberRefLocals) {
  return new FiberRefsImpl(fiberRefLocals);
}
function empty17() {
  return unsafeMake4(/* @__PURE__ */ new Map());
}
var FiberRefsSym = /* @__PURE__ */ Symbol.for("effect/FiberRefs"), FiberRefsImpl = class {
  locals;
  [FiberRefsSym] = FiberRefsSym;
  constructor(locals) {
    this.locals = locals;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, findAncestor = (_ref, _parentStack, _childStack, _childModified = !1) => {
  let ref = _ref, parentStack = _parentStack, childStack = _childStack, childModified = _childModified, ret;
  for (; ret === void 0; )
    if (isNonEmptyReadonlyArray(parentStack) && isNonEmptyReadonlyArray(childStack)) {
      let parentFiberId = headNonEmpty(parentStack)[0], parentAncestors = tailNonEmpty(parentStack), childFiberId = headNonEmpty(childStack)[0], childRefValue = headNonEmpty(childStack)[1], childAncestors = tailNonEmpty(childStack);
      parentFiberId.startTimeMillis < childFiberId.startTimeMillis ? (childStack = childAncestors, childModified = !0) : parentFiberId.startTimeMillis > childFiberId.startTimeMillis ? parentStack = parentAncestors : parentFiberId.id < childFiberId.id ? (childStack = childAncestors, childModified = !0) : parentFiberId.id > childFiberId.id ? parentStack = parentAncestors : ret = [childRefValue, childModified];
    } else
      ret = [ref.initial, !0];
  return ret;
}, joinAs = /* @__PURE__ */ dual(3, (self, fiberId2, that) => {
  let parentFiberRefs = new Map(self.locals);
  return that.locals.forEach((childStack, fiberRef) => {
    let childValue = childStack[0][1];
    if (!childStack[0][0][symbol2](fiberId2)) {
      if (!parentFiberRefs.has(fiberRef)) {
        if (equals(childValue, fiberRef.initial))
          return;
        parentFiberRefs.set(fiberRef, [[fiberId2, fiberRef.join(fiberRef.initial, childValue)]]);
        return;
      }
      let parentStack = parentFiberRefs.get(fiberRef), [ancestor, wasModified] = findAncestor(fiberRef, parentStack, childStack);
      if (wasModified) {
        let patch10 = fiberRef.diff(ancestor, childValue), oldValue = parentStack[0][1], newValue = fiberRef.join(oldValue, fiberRef.patch(patch10)(oldValue));
        if (!equals(oldValue, newValue)) {
          let newStack, parentFiberId = parentStack[0][0];
          parentFiberId[symbol2](fiberId2) ? newStack = [[parentFiberId, newValue], ...parentStack.slice(1)] : newStack = [[fiberId2, newValue], ...parentStack], parentFiberRefs.set(fiberRef, newStack);
        }
      }
    }
  }), new FiberRefsImpl(parentFiberRefs);
}), forkAs = /* @__PURE__ */ dual(2, (self, childId) => {
  let map24 = /* @__PURE__ */ new Map();
  return unsafeForkAs(self, map24, childId), new FiberRefsImpl(map24);
}), unsafeForkAs = (self, map24, fiberId2) => {
  self.locals.forEach((stack, fiberRef) => {
    let oldValue = stack[0][1], newValue = fiberRef.patch(fiberRef.fork)(oldValue);
    equals(oldValue, newValue) ? map24.set(fiberRef, stack) : map24.set(fiberRef, [[fiberId2, newValue], ...stack]);
  });
};
var delete_ = /* @__PURE__ */ dual(2, (self, fiberRef) => {
  let locals = new Map(self.locals);
  return locals.delete(fiberRef), new FiberRefsImpl(locals);
}), get8 = /* @__PURE__ */ dual(2, (self, fiberRef) => self.locals.has(fiberRef) ? some2(headNonEmpty(self.locals.get(fiberRef))[1]) : none2()), getOrDefault = /* @__PURE__ */ dual(2, (self, fiberRef) => pipe(get8(self, fiberRef), getOrElse(() => fiberRef.initial))), updateAs = /* @__PURE__ */ dual(2, (self, {
  fiberId: fiberId2,
  fiberRef,
  value: value2
}) => {
  if (self.locals.size === 0)
    return new FiberRefsImpl(/* @__PURE__ */ new Map([[fiberRef, [[fiberId2, value2]]]]));
  let locals = new Map(self.locals);
  return unsafeUpdateAs(locals, fiberId2, fiberRef, value2), new FiberRefsImpl(locals);
}), unsafeUpdateAs = (locals, fiberId2, fiberRef, value2) => {
  let oldStack = locals.get(fiberRef) ?? [], newStack;
  if (isNonEmptyReadonlyArray(oldStack)) {
    let [currentId, currentValue] = headNonEmpty(oldStack);
    if (currentId[symbol2](fiberId2)) {
      if (equals(currentValue, value2))
        return;
      newStack = [[fiberId2, value2], ...oldStack.slice(1)];
    } else
      newStack = [[fiberId2, value2], ...oldStack];
  } else
    newStack = [[fiberId2, value2]];
  locals.set(fiberRef, newStack);
}, updateManyAs = /* @__PURE__ */ dual(2, (self, {
  entries: entries2,
  forkAs: forkAs2
}) => {
  if (self.locals.size === 0)
    return new FiberRefsImpl(new Map(entries2));
  let locals = new Map(self.locals);
  return forkAs2 !== void 0 && unsafeForkAs(self, locals, forkAs2), entries2.forEach(([fiberRef, values3]) => {
    values3.length === 1 ? unsafeUpdateAs(locals, values3[0][0], fiberRef, values3[0][1]) : values3.forEach(([fiberId2, value2]) => {
      unsafeUpdateAs(locals, fiberId2, fiberRef, value2);
    });
  }), new FiberRefsImpl(locals);
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/FiberRefs.js
var delete_2 = delete_;
var getOrDefault2 = getOrDefault;
var updateManyAs2 = updateManyAs;
var empty18 = empty17;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/fiberRefs/patch.js
var OP_EMPTY2 = "Empty", OP_ADD = "Add", OP_REMOVE = "Remove", OP_UPDATE = "Update", OP_AND_THEN = "AndThen", empty19 = {
  _tag: OP_EMPTY2
}, diff5 = (oldValue, newValue) => {
  let missingLocals = new Map(oldValue.locals), patch10 = empty19;
  for (let [fiberRef, pairs] of newValue.locals.entries()) {
    let newValue2 = headNonEmpty(pairs)[1], old = missingLocals.get(fiberRef);
    if (old !== void 0) {
      let oldValue2 = headNonEmpty(old)[1];
      equals(oldValue2, newValue2) || (patch10 = combine7({
        _tag: OP_UPDATE,
        fiberRef,
        patch: fiberRef.diff(oldValue2, newValue2)
      })(patch10));
    } else
      patch10 = combine7({
        _tag: OP_ADD,
        fiberRef,
        value: newValue2
      })(patch10);
    missingLocals.delete(fiberRef);
  }
  for (let [fiberRef] of missingLocals.entries())
    patch10 = combine7({
      _tag: OP_REMOVE,
      fiberRef
    })(patch10);
  return patch10;
}, combine7 = /* @__PURE__ */ dual(2, (self, that) => ({
  _tag: OP_AND_THEN,
  first: self,
  second: that
})), patch6 = /* @__PURE__ */ dual(3, (self, fiberId2, oldValue) => {
  let fiberRefs3 = oldValue, patches = of(self);
  for (; isNonEmptyReadonlyArray(patches); ) {
    let head5 = headNonEmpty(patches), tail = tailNonEmpty(patches);
    switch (head5._tag) {
      case OP_EMPTY2: {
        patches = tail;
        break;
      }
      case OP_ADD: {
        fiberRefs3 = updateAs(fiberRefs3, {
          fiberId: fiberId2,
          fiberRef: head5.fiberRef,
          value: head5.value
        }), patches = tail;
        break;
      }
      case OP_REMOVE: {
        fiberRefs3 = delete_(fiberRefs3, head5.fiberRef), patches = tail;
        break;
      }
      case OP_UPDATE: {
        let value2 = getOrDefault(fiberRefs3, head5.fiberRef);
        fiberRefs3 = updateAs(fiberRefs3, {
          fiberId: fiberId2,
          fiberRef: head5.fiberRef,
          value: head5.fiberRef.patch(head5.patch)(value2)
        }), patches = tail;
        break;
      }
      case OP_AND_THEN: {
        patches = prepend(head5.first)(prepend(head5.second)(tail));
        break;
      }
    }
  }
  return fiberRefs3;
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/FiberRefsPatch.js
var diff6 = diff5;
var patch7 = patch6;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/fiberStatus.js
var FiberStatusSymbolKey = "effect/FiberStatus", FiberStatusTypeId = /* @__PURE__ */ Symbol.for(FiberStatusSymbolKey), OP_DONE = "Done", OP_RUNNING = "Running", OP_SUSPENDED = "Suspended", DoneHash = /* @__PURE__ */ string(`${FiberStatusSymbolKey}-${OP_DONE}`), Done = class {
  [FiberStatusTypeId] = FiberStatusTypeId;
  _tag = OP_DONE;
  [symbol]() {
    return DoneHash;
  }
  [symbol2](that) {
    return isFiberStatus(that) && that._tag === OP_DONE;
  }
}, Running = class {
  runtimeFlags;
  [FiberStatusTypeId] = FiberStatusTypeId;
  _tag = OP_RUNNING;
  constructor(runtimeFlags2) {
    this.runtimeFlags = runtimeFlags2;
  }
  [symbol]() {
    return pipe(hash(FiberStatusSymbolKey), combine(hash(this._tag)), combine(hash(this.runtimeFlags)), cached(this));
  }
  [symbol2](that) {
    return isFiberStatus(that) && that._tag === OP_RUNNING && this.runtimeFlags === that.runtimeFlags;
  }
}, Suspended = class {
  runtimeFlags;
  blockingOn;
  [FiberStatusTypeId] = FiberStatusTypeId;
  _tag = OP_SUSPENDED;
  constructor(runtimeFlags2, blockingOn) {
    this.runtimeFlags = runtimeFlags2, this.blockingOn = blockingOn;
  }
  [symbol]() {
    return pipe(hash(FiberStatusSymbolKey), combine(hash(this._tag)), combine(hash(this.runtimeFlags)), combine(hash(this.blockingOn)), cached(this));
  }
  [symbol2](that) {
    return isFiberStatus(that) && that._tag === OP_SUSPENDED && this.runtimeFlags === that.runtimeFlags && equals(this.blockingOn, that.blockingOn);
  }
}, done2 = /* @__PURE__ */ new Done(), running = (runtimeFlags2) => new Running(runtimeFlags2), suspended = (runtimeFlags2, blockingOn) => new Suspended(runtimeFlags2, blockingOn), isFiberStatus = (u) => hasProperty(u, FiberStatusTypeId), isDone = (self) => self._tag === OP_DONE;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/FiberStatus.js
var done3 = done2, running2 = running, suspended2 = suspended;
var isDone2 = isDone;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/LogLevel.js
var All = logLevelAll, Fatal = logLevelFatal, Error2 = logLevelError, Warning = logLevelWarning, Info = logLevelInfo, Debug = logLevelDebug, Trace = logLevelTrace, None3 = logLevelNone;
var Order3 = /* @__PURE__ */ pipe(Order2, /* @__PURE__ */ mapInput2((level) => level.ordinal));
var greaterThan2 = /* @__PURE__ */ greaterThan(Order3);
var fromLiteral = (literal2) => {
  switch (literal2) {
    case "All":
      return All;
    case "Debug":
      return Debug;
    case "Error":
      return Error2;
    case "Fatal":
      return Fatal;
    case "Info":
      return Info;
    case "Trace":
      return Trace;
    case "None":
      return None3;
    case "Warning":
      return Warning;
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Micro.js
var TypeId9 = /* @__PURE__ */ Symbol.for("effect/Micro"), MicroExitTypeId = /* @__PURE__ */ Symbol.for("effect/Micro/MicroExit");
var MicroCauseTypeId = /* @__PURE__ */ Symbol.for("effect/Micro/MicroCause");
var microCauseVariance = {
  _E: identity
}, MicroCauseImpl = class extends globalThis.Error {
  _tag;
  traces;
  [MicroCauseTypeId];
  constructor(_tag, originalError, traces) {
    let causeName = `MicroCause.${_tag}`, name, message2, stack;
    if (originalError instanceof globalThis.Error) {
      name = `(${causeName}) ${originalError.name}`, message2 = originalError.message;
      let messageLines = message2.split(`
`).length;
      stack = originalError.stack ? `(${causeName}) ${originalError.stack.split(`
`).slice(0, messageLines + 3).join(`
`)}` : `${name}: ${message2}`;
    } else
      name = causeName, message2 = toStringUnknown(originalError, 0), stack = `${name}: ${message2}`;
    traces.length > 0 && (stack += `
    ${traces.join(`
    `)}`), super(message2), this._tag = _tag, this.traces = traces, this[MicroCauseTypeId] = microCauseVariance, this.name = name, this.stack = stack;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
  toString() {
    return this.stack;
  }
  [NodeInspectSymbol]() {
    return this.stack;
  }
};
var Die = class extends MicroCauseImpl {
  defect;
  constructor(defect, traces = []) {
    super("Die", defect, traces), this.defect = defect;
  }
}, causeDie = (defect, traces = []) => new Die(defect, traces), Interrupt = class extends MicroCauseImpl {
  constructor(traces = []) {
    super("Interrupt", "interrupted", traces);
  }
}, causeInterrupt = (traces = []) => new Interrupt(traces);
var causeIsInterrupt = (self) => self._tag === "Interrupt";
var MicroFiberTypeId = /* @__PURE__ */ Symbol.for("effect/Micro/MicroFiber"), fiberVariance = {
  _A: identity,
  _E: identity
}, MicroFiberImpl = class {
  context;
  interruptible;
  [MicroFiberTypeId];
  _stack = [];
  _observers = [];
  _exit;
  _children;
  currentOpCount = 0;
  constructor(context5, interruptible5 = !0) {
    this.context = context5, this.interruptible = interruptible5, this[MicroFiberTypeId] = fiberVariance;
  }
  getRef(ref) {
    return unsafeGetReference(this.context, ref);
  }
  addObserver(cb) {
    return this._exit ? (cb(this._exit), constVoid) : (this._observers.push(cb), () => {
      let index = this._observers.indexOf(cb);
      index >= 0 && this._observers.splice(index, 1);
    });
  }
  _interrupted = !1;
  unsafeInterrupt() {
    this._exit || (this._interrupted = !0, this.interruptible && this.evaluate(exitInterrupt2));
  }
  unsafePoll() {
    return this._exit;
  }
  evaluate(effect3) {
    if (this._exit)
      return;
    if (this._yielded !== void 0) {
      let yielded = this._yielded;
      this._yielded = void 0, yielded();
    }
    let exit4 = this.runLoop(effect3);
    if (exit4 === Yield)
      return;
    let interruptChildren = fiberMiddleware.interruptChildren && fiberMiddleware.interruptChildren(this);
    if (interruptChildren !== void 0)
      return this.evaluate(flatMap8(interruptChildren, () => exit4));
    this._exit = exit4;
    for (let i = 0; i < this._observers.length; i++)
      this._observers[i](exit4);
    this._observers.length = 0;
  }
  runLoop(effect3) {
    let yielding = !1, current = effect3;
    this.currentOpCount = 0;
    try {
      for (; ; ) {
        if (this.currentOpCount++, !yielding && this.getRef(CurrentScheduler).shouldYield(this)) {
          yielding = !0;
          let prev = current;
          current = flatMap8(yieldNow2, () => prev);
        }
        if (current = current[evaluate](this), current === Yield) {
          let yielded = this._yielded;
          return MicroExitTypeId in yielded ? (this._yielded = void 0, yielded) : Yield;
        }
      }
    } catch (error) {
      return hasProperty(current, evaluate) ? exitDie2(error) : exitDie2(`MicroFiber.runLoop: Not a valid effect: ${String(current)}`);
    }
  }
  getCont(symbol3) {
    for (; ; ) {
      let op = this._stack.pop();
      if (!op) return;
      let cont = op[ensureCont] && op[ensureCont](this);
      if (cont) return {
        [symbol3]: cont
      };
      if (op[symbol3]) return op;
    }
  }
  // cancel the yielded operation, or for the yielded exit value
  _yielded = void 0;
  yieldWith(value2) {
    return this._yielded = value2, Yield;
  }
  children() {
    return this._children ??= /* @__PURE__ */ new Set();
  }
}, fiberMiddleware = /* @__PURE__ */ globalValue("effect/Micro/fiberMiddleware", () => ({
  interruptChildren: void 0
}));
var fiberInterruptAll = (fibers) => suspend2(() => {
  for (let fiber of fibers) fiber.unsafeInterrupt();
  let iter = fibers[Symbol.iterator](), wait = suspend2(() => {
    let result = iter.next();
    for (; !result.done; ) {
      if (result.value.unsafePoll()) {
        result = iter.next();
        continue;
      }
      let fiber = result.value;
      return async((resume2) => {
        fiber.addObserver((_) => {
          resume2(wait);
        });
      });
    }
    return exitVoid2;
  });
  return wait;
}), identifier = /* @__PURE__ */ Symbol.for("effect/Micro/identifier"), args = /* @__PURE__ */ Symbol.for("effect/Micro/args"), evaluate = /* @__PURE__ */ Symbol.for("effect/Micro/evaluate"), successCont = /* @__PURE__ */ Symbol.for("effect/Micro/successCont"), failureCont = /* @__PURE__ */ Symbol.for("effect/Micro/failureCont"), ensureCont = /* @__PURE__ */ Symbol.for("effect/Micro/ensureCont"), Yield = /* @__PURE__ */ Symbol.for("effect/Micro/Yield"), microVariance = {
  _A: identity,
  _E: identity,
  _R: identity
}, MicroProto = {
  ...EffectPrototype2,
  _op: "Micro",
  [TypeId9]: microVariance,
  pipe() {
    return pipeArguments(this, arguments);
  },
  [Symbol.iterator]() {
    return new SingleShotGen(new YieldWrap(this));
  },
  toJSON() {
    return {
      _id: "Micro",
      op: this[identifier],
      ...args in this ? {
        args: this[args]
      } : void 0
    };
  },
  toString() {
    return format(this);
  },
  [NodeInspectSymbol]() {
    return format(this);
  }
};
function defaultEvaluate(_fiber) {
  return exitDie2("Micro.evaluate: Not implemented");
}
var makePrimitiveProto = (options) => ({
  ...MicroProto,
  [identifier]: options.op,
  [evaluate]: options.eval ?? defaultEvaluate,
  [successCont]: options.contA,
  [failureCont]: options.contE,
  [ensureCont]: options.ensure
}), makePrimitive = (options) => {
  let Proto2 = makePrimitiveProto(options);
  return function() {
    let self = Object.create(Proto2);
    return self[args] = options.single === !1 ? arguments : arguments[0], self;
  };
}, makeExit = (options) => {
  let Proto2 = {
    ...makePrimitiveProto(options),
    [MicroExitTypeId]: MicroExitTypeId,
    _tag: options.op,
    get [options.prop]() {
      return this[args];
    },
    toJSON() {
      return {
        _id: "MicroExit",
        _tag: options.op,
        [options.prop]: this[args]
      };
    },
    [symbol2](that) {
      return isMicroExit(that) && that._tag === options.op && equals(this[args], that[args]);
    },
    [symbol]() {
      return cached(this, combine(string(options.op))(hash(this[args])));
    }
  };
  return function(value2) {
    let self = Object.create(Proto2);
    return self[args] = value2, self[successCont] = void 0, self[failureCont] = void 0, self[ensureCont] = void 0, self;
  };
}, succeed2 = /* @__PURE__ */ makeExit({
  op: "Success",
  prop: "value",
  eval(fiber) {
    let cont = fiber.getCont(successCont);
    return cont ? cont[successCont](this[args], fiber) : fiber.yieldWith(this);
  }
}), failCause2 = /* @__PURE__ */ makeExit({
  op: "Failure",
  prop: "cause",
  eval(fiber) {
    let cont = fiber.getCont(failureCont);
    for (; causeIsInterrupt(this[args]) && cont && fiber.interruptible; )
      cont = fiber.getCont(failureCont);
    return cont ? cont[failureCont](this[args], fiber) : fiber.yieldWith(this);
  }
});
var sync2 = /* @__PURE__ */ makePrimitive({
  op: "Sync",
  eval(fiber) {
    let value2 = this[args](), cont = fiber.getCont(successCont);
    return cont ? cont[successCont](value2, fiber) : fiber.yieldWith(exitSucceed2(value2));
  }
}), suspend2 = /* @__PURE__ */ makePrimitive({
  op: "Suspend",
  eval(_fiber) {
    return this[args]();
  }
}), yieldNowWith = /* @__PURE__ */ makePrimitive({
  op: "Yield",
  eval(fiber) {
    let resumed = !1;
    return fiber.getRef(CurrentScheduler).scheduleTask(() => {
      resumed || fiber.evaluate(exitVoid2);
    }, this[args] ?? 0), fiber.yieldWith(() => {
      resumed = !0;
    });
  }
}), yieldNow2 = /* @__PURE__ */ yieldNowWith(0);
var void_2 = /* @__PURE__ */ succeed2(void 0);
var withMicroFiber = /* @__PURE__ */ makePrimitive({
  op: "WithMicroFiber",
  eval(fiber) {
    return this[args](fiber);
  }
});
var asyncOptions = /* @__PURE__ */ makePrimitive({
  op: "Async",
  single: !1,
  eval(fiber) {
    let register2 = this[args][0], resumed = !1, yielded = !1, controller = this[args][1] ? new AbortController() : void 0, onCancel = register2((effect3) => {
      resumed || (resumed = !0, yielded ? fiber.evaluate(effect3) : yielded = effect3);
    }, controller?.signal);
    return yielded !== !1 ? yielded : (yielded = !0, fiber._yielded = () => {
      resumed = !0;
    }, controller === void 0 && onCancel === void 0 || fiber._stack.push(asyncFinalizer(() => (resumed = !0, controller?.abort(), onCancel ?? exitVoid2))), Yield);
  }
}), asyncFinalizer = /* @__PURE__ */ makePrimitive({
  op: "AsyncFinalizer",
  ensure(fiber) {
    fiber.interruptible && (fiber.interruptible = !1, fiber._stack.push(setInterruptible(!0)));
  },
  contE(cause2, _fiber) {
    return causeIsInterrupt(cause2) ? flatMap8(this[args](), () => failCause2(cause2)) : failCause2(cause2);
  }
}), async = (register2) => asyncOptions(register2, register2.length >= 2);
var as2 = /* @__PURE__ */ dual(2, (self, value2) => map11(self, (_) => value2));
var exit2 = (self) => matchCause2(self, {
  onFailure: exitFailCause2,
  onSuccess: exitSucceed2
});
var flatMap8 = /* @__PURE__ */ dual(2, (self, f) => {
  let onSuccess = Object.create(OnSuccessProto);
  return onSuccess[args] = self, onSuccess[successCont] = f, onSuccess;
}), OnSuccessProto = /* @__PURE__ */ makePrimitiveProto({
  op: "OnSuccess",
  eval(fiber) {
    return fiber._stack.push(this), this[args];
  }
});
var map11 = /* @__PURE__ */ dual(2, (self, f) => flatMap8(self, (a) => succeed2(f(a)))), isMicroExit = (u) => hasProperty(u, MicroExitTypeId), exitSucceed2 = succeed2, exitFailCause2 = failCause2, exitInterrupt2 = /* @__PURE__ */ exitFailCause2(/* @__PURE__ */ causeInterrupt());
var exitDie2 = (defect) => exitFailCause2(causeDie(defect));
var exitVoid2 = /* @__PURE__ */ exitSucceed2(void 0), exitVoidAll = (exits) => {
  for (let exit4 of exits)
    if (exit4._tag === "Failure")
      return exit4;
  return exitVoid2;
}, setImmediate = "setImmediate" in globalThis ? globalThis.setImmediate : (f) => setTimeout(f, 0), MicroSchedulerDefault = class {
  tasks = [];
  running = !1;
  /**
   * @since 3.5.9
   */
  scheduleTask(task, _priority) {
    this.tasks.push(task), this.running || (this.running = !0, setImmediate(this.afterScheduled));
  }
  /**
   * @since 3.5.9
   */
  afterScheduled = () => {
    this.running = !1, this.runTasks();
  };
  /**
   * @since 3.5.9
   */
  runTasks() {
    let tasks = this.tasks;
    this.tasks = [];
    for (let i = 0, len = tasks.length; i < len; i++)
      tasks[i]();
  }
  /**
   * @since 3.5.9
   */
  shouldYield(fiber) {
    return fiber.currentOpCount >= fiber.getRef(MaxOpsBeforeYield);
  }
  /**
   * @since 3.5.9
   */
  flush() {
    for (; this.tasks.length > 0; )
      this.runTasks();
  }
};
var updateContext = /* @__PURE__ */ dual(2, (self, f) => withMicroFiber((fiber) => {
  let prev = fiber.context;
  return fiber.context = f(prev), onExit2(self, () => (fiber.context = prev, void_2));
}));
var provideContext2 = /* @__PURE__ */ dual(2, (self, provided) => updateContext(self, merge3(provided)));
var MaxOpsBeforeYield = class extends (/* @__PURE__ */ Reference2()("effect/Micro/currentMaxOpsBeforeYield", {
  defaultValue: () => 2048
})) {
}, CurrentConcurrency = class extends (/* @__PURE__ */ Reference2()("effect/Micro/currentConcurrency", {
  defaultValue: () => "unbounded"
})) {
}, CurrentScheduler = class extends (/* @__PURE__ */ Reference2()("effect/Micro/currentScheduler", {
  defaultValue: () => new MicroSchedulerDefault()
})) {
};
var matchCauseEffect2 = /* @__PURE__ */ dual(2, (self, options) => {
  let primitive2 = Object.create(OnSuccessAndFailureProto);
  return primitive2[args] = self, primitive2[successCont] = options.onSuccess, primitive2[failureCont] = options.onFailure, primitive2;
}), OnSuccessAndFailureProto = /* @__PURE__ */ makePrimitiveProto({
  op: "OnSuccessAndFailure",
  eval(fiber) {
    return fiber._stack.push(this), this[args];
  }
}), matchCause2 = /* @__PURE__ */ dual(2, (self, options) => matchCauseEffect2(self, {
  onFailure: (cause2) => sync2(() => options.onFailure(cause2)),
  onSuccess: (value2) => sync2(() => options.onSuccess(value2))
}));
var MicroScopeTypeId = /* @__PURE__ */ Symbol.for("effect/Micro/MicroScope");
var MicroScopeImpl = class _MicroScopeImpl {
  [MicroScopeTypeId];
  state = {
    _tag: "Open",
    finalizers: /* @__PURE__ */ new Set()
  };
  constructor() {
    this[MicroScopeTypeId] = MicroScopeTypeId;
  }
  unsafeAddFinalizer(finalizer2) {
    this.state._tag === "Open" && this.state.finalizers.add(finalizer2);
  }
  addFinalizer(finalizer2) {
    return suspend2(() => this.state._tag === "Open" ? (this.state.finalizers.add(finalizer2), void_2) : finalizer2(this.state.exit));
  }
  unsafeRemoveFinalizer(finalizer2) {
    this.state._tag === "Open" && this.state.finalizers.delete(finalizer2);
  }
  close(microExit) {
    return suspend2(() => {
      if (this.state._tag === "Open") {
        let finalizers = Array.from(this.state.finalizers).reverse();
        return this.state = {
          _tag: "Closed",
          exit: microExit
        }, flatMap8(forEach3(finalizers, (finalizer2) => exit2(finalizer2(microExit))), exitVoidAll);
      }
      return void_2;
    });
  }
  get fork() {
    return sync2(() => {
      let newScope = new _MicroScopeImpl();
      if (this.state._tag === "Closed")
        return newScope.state = this.state, newScope;
      function fin(exit4) {
        return newScope.close(exit4);
      }
      return this.state.finalizers.add(fin), newScope.unsafeAddFinalizer((_) => sync2(() => this.unsafeRemoveFinalizer(fin))), newScope;
    });
  }
};
var onExit2 = /* @__PURE__ */ dual(2, (self, f) => uninterruptibleMask2((restore) => matchCauseEffect2(restore(self), {
  onFailure: (cause2) => flatMap8(f(exitFailCause2(cause2)), () => failCause2(cause2)),
  onSuccess: (a) => flatMap8(f(exitSucceed2(a)), () => succeed2(a))
})));
var setInterruptible = /* @__PURE__ */ makePrimitive({
  op: "SetInterruptible",
  ensure(fiber) {
    if (fiber.interruptible = this[args], fiber._interrupted && fiber.interruptible)
      return () => exitInterrupt2;
  }
}), interruptible3 = (self) => withMicroFiber((fiber) => fiber.interruptible ? self : (fiber.interruptible = !0, fiber._stack.push(setInterruptible(!1)), fiber._interrupted ? exitInterrupt2 : self)), uninterruptibleMask2 = (f) => withMicroFiber((fiber) => fiber.interruptible ? (fiber.interruptible = !1, fiber._stack.push(setInterruptible(!0)), f(interruptible3)) : f(identity));
var whileLoop2 = /* @__PURE__ */ makePrimitive({
  op: "While",
  contA(value2, fiber) {
    return this[args].step(value2), this[args].while() ? (fiber._stack.push(this), this[args].body()) : exitVoid2;
  },
  eval(fiber) {
    return this[args].while() ? (fiber._stack.push(this), this[args].body()) : exitVoid2;
  }
}), forEach3 = (iterable, f, options) => withMicroFiber((parent) => {
  let concurrencyOption = options?.concurrency === "inherit" ? parent.getRef(CurrentConcurrency) : options?.concurrency ?? 1, concurrency = concurrencyOption === "unbounded" ? Number.POSITIVE_INFINITY : Math.max(1, concurrencyOption), items = fromIterable(iterable), length3 = items.length;
  if (length3 === 0)
    return options?.discard ? void_2 : succeed2([]);
  let out = options?.discard ? void 0 : new Array(length3), index = 0;
  return concurrency === 1 ? as2(whileLoop2({
    while: () => index < items.length,
    body: () => f(items[index], index),
    step: out ? (b) => out[index++] = b : (_) => index++
  }), out) : async((resume2) => {
    let fibers = /* @__PURE__ */ new Set(), result, inProgress = 0, doneCount = 0, pumping = !1, interrupted3 = !1;
    function pump() {
      for (pumping = !0; inProgress < concurrency && index < length3; ) {
        let currentIndex = index, item = items[currentIndex];
        index++, inProgress++;
        try {
          let child = unsafeFork(parent, f(item, currentIndex), !0, !0);
          fibers.add(child), child.addObserver((exit4) => {
            fibers.delete(child), !interrupted3 && (exit4._tag === "Failure" ? result === void 0 && (result = exit4, length3 = index, fibers.forEach((fiber) => fiber.unsafeInterrupt())) : out !== void 0 && (out[currentIndex] = exit4.value), doneCount++, inProgress--, doneCount === length3 ? resume2(result ?? succeed2(out)) : !pumping && inProgress < concurrency && pump());
          });
        } catch (err) {
          result = exitDie2(err), length3 = index, fibers.forEach((fiber) => fiber.unsafeInterrupt());
        }
      }
      pumping = !1;
    }
    return pump(), suspend2(() => (interrupted3 = !0, index = length3, fiberInterruptAll(fibers)));
  });
});
var unsafeFork = (parent, effect3, immediate = !1, daemon = !1) => {
  let child = new MicroFiberImpl(parent.context, parent.interruptible);
  return daemon || (parent.children().add(child), child.addObserver(() => parent.children().delete(child))), immediate ? child.evaluate(effect3) : parent.getRef(CurrentScheduler).scheduleTask(() => child.evaluate(effect3), 0), child;
};
var runFork = (effect3, options) => {
  let fiber = new MicroFiberImpl(CurrentScheduler.context(options?.scheduler ?? new MicroSchedulerDefault()));
  if (fiber.evaluate(effect3), options?.signal)
    if (options.signal.aborted)
      fiber.unsafeInterrupt();
    else {
      let abort = () => fiber.unsafeInterrupt();
      options.signal.addEventListener("abort", abort, {
        once: !0
      }), fiber.addObserver(() => options.signal.removeEventListener("abort", abort));
    }
  return fiber;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Readable.js
var TypeId10 = /* @__PURE__ */ Symbol.for("effect/Readable");
var Proto = {
  [TypeId10]: TypeId10,
  pipe() {
    return pipeArguments(this, arguments);
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/ref.js
var RefTypeId = /* @__PURE__ */ Symbol.for("effect/Ref"), refVariance = {
  /* c8 ignore next */
  _A: (_) => _
}, RefImpl = class extends Class2 {
  ref;
  commit() {
    return this.get;
  }
  [RefTypeId] = refVariance;
  [TypeId10] = TypeId10;
  constructor(ref) {
    super(), this.ref = ref, this.get = sync(() => get6(this.ref));
  }
  get;
  modify(f) {
    return sync(() => {
      let current = get6(this.ref), [b, a] = f(current);
      return current !== a && set2(a)(this.ref), b;
    });
  }
}, unsafeMake5 = (value2) => new RefImpl(make11(value2)), make23 = (value2) => sync(() => unsafeMake5(value2)), get9 = (self) => self.get, set4 = /* @__PURE__ */ dual(2, (self, value2) => self.modify(() => [void 0, value2]));
var modify3 = /* @__PURE__ */ dual(2, (self, f) => self.modify(f));
var update2 = /* @__PURE__ */ dual(2, (self, f) => self.modify((a) => [void 0, f(a)]));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Ref.js
var make24 = make23, get10 = get9;
var modify4 = modify3;
var update3 = update2;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Scheduler.js
var SchedulerRunner = class _SchedulerRunner {
  scheduleDrain;
  running = !1;
  tasks = /* @__PURE__ */ new PriorityBuckets();
  constructor(scheduleDrain) {
    this.scheduleDrain = scheduleDrain;
  }
  starveInternal = (depth) => {
    let tasks = this.tasks.buckets;
    this.tasks.buckets = [];
    for (let [_, toRun] of tasks)
      for (let i = 0; i < toRun.length; i++)
        toRun[i]();
    this.tasks.buckets.length === 0 ? this.running = !1 : this.starve(depth);
  };
  starve(depth = 0) {
    this.scheduleDrain(depth, this.starveInternal);
  }
  scheduleTask(task, priority) {
    this.tasks.scheduleTask(task, priority), this.running || (this.running = !0, this.starve());
  }
  /**
   * @since 3.20.0
   * @category constructors
   */
  static cached(scheduleDrain) {
    let fallback2 = new _SchedulerRunner(scheduleDrain), runners = /* @__PURE__ */ new WeakMap();
    return (fiber) => {
      if (fiber === void 0)
        return fallback2;
      let runner = runners.get(fiber);
      return runner === void 0 && (runner = new _SchedulerRunner(scheduleDrain), runners.set(fiber, runner)), runner;
    };
  }
}, PriorityBuckets = class {
  /**
   * @since 2.0.0
   */
  buckets = [];
  /**
   * @since 2.0.0
   */
  scheduleTask(task, priority) {
    let length3 = this.buckets.length, bucket, index = 0;
    for (; index < length3 && this.buckets[index][0] <= priority; index++)
      bucket = this.buckets[index];
    bucket && bucket[0] === priority ? bucket[1].push(task) : index === length3 ? this.buckets.push([priority, [task]]) : this.buckets.splice(index, 0, [priority, [task]]);
  }
}, MixedScheduler = class {
  maxNextTickBeforeTimer;
  getRunner = /* @__PURE__ */ SchedulerRunner.cached((depth, drain4) => {
    depth >= this.maxNextTickBeforeTimer ? setTimeout(() => drain4(0), 0) : Promise.resolve(void 0).then(() => drain4(depth + 1));
  });
  constructor(maxNextTickBeforeTimer) {
    this.maxNextTickBeforeTimer = maxNextTickBeforeTimer;
  }
  /**
   * @since 2.0.0
   */
  shouldYield(fiber) {
    return fiber.currentOpCount > fiber.getFiberRef(currentMaxOpsBeforeYield) ? fiber.getFiberRef(currentSchedulingPriority) : !1;
  }
  /**
   * @since 2.0.0
   */
  scheduleTask(task, priority, fiber) {
    this.getRunner(fiber).scheduleTask(task, priority);
  }
}, defaultScheduler = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/Scheduler/defaultScheduler"), () => new MixedScheduler(2048)), SyncScheduler = class {
  /**
   * @since 2.0.0
   */
  tasks = /* @__PURE__ */ new PriorityBuckets();
  /**
   * @since 2.0.0
   */
  deferred = !1;
  /**
   * @since 2.0.0
   */
  scheduleTask(task, priority, fiber) {
    this.deferred ? defaultScheduler.scheduleTask(task, priority, fiber) : this.tasks.scheduleTask(task, priority);
  }
  /**
   * @since 2.0.0
   */
  shouldYield(fiber) {
    return fiber.currentOpCount > fiber.getFiberRef(currentMaxOpsBeforeYield) ? fiber.getFiberRef(currentSchedulingPriority) : !1;
  }
  /**
   * @since 2.0.0
   */
  flush() {
    for (; this.tasks.buckets.length > 0; ) {
      let tasks = this.tasks.buckets;
      this.tasks.buckets = [];
      for (let [_, toRun] of tasks)
        for (let i = 0; i < toRun.length; i++)
          toRun[i]();
    }
    this.deferred = !0;
  }
};
var currentScheduler = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentScheduler"), () => fiberRefUnsafeMake(defaultScheduler));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/completedRequestMap.js
var currentRequestMap = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentRequestMap"), () => fiberRefUnsafeMake(/* @__PURE__ */ new Map()));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/concurrency.js
var match7 = (concurrency, sequential5, unbounded6, bounded6) => {
  switch (concurrency) {
    case void 0:
      return sequential5();
    case "unbounded":
      return unbounded6();
    case "inherit":
      return fiberRefGetWith(currentConcurrency, (concurrency2) => concurrency2 === "unbounded" ? unbounded6() : concurrency2 > 1 ? bounded6(concurrency2) : sequential5());
    default:
      return concurrency > 1 ? bounded6(concurrency) : sequential5();
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Clock.js
var sleep2 = sleep, currentTimeMillis2 = currentTimeMillis;
var clockWith2 = clockWith, Clock = clockTag;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/logSpan.js
var formatLabel = (key) => key.replace(/[\s="]/g, "_"), render = (now2) => (self) => `${formatLabel(self.label)}=${now2 - self.startTime}ms`;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Tracer.js
var ParentSpan = spanTag;
var DisablePropagation2 = DisablePropagation;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/metric/label.js
var MetricLabelSymbolKey = "effect/MetricLabel", MetricLabelTypeId = /* @__PURE__ */ Symbol.for(MetricLabelSymbolKey), MetricLabelImpl = class {
  key;
  value;
  [MetricLabelTypeId] = MetricLabelTypeId;
  _hash;
  constructor(key, value2) {
    this.key = key, this.value = value2, this._hash = string(MetricLabelSymbolKey + this.key + this.value);
  }
  [symbol]() {
    return this._hash;
  }
  [symbol2](that) {
    return isMetricLabel(that) && this.key === that.key && this.value === that.value;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, make25 = (key, value2) => new MetricLabelImpl(key, value2), isMetricLabel = (u) => hasProperty(u, MetricLabelTypeId);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/core-effect.js
var asSome = (self) => map10(self, some2);
var try_ = (arg) => {
  let evaluate2, onFailure;
  return typeof arg == "function" ? evaluate2 = arg : (evaluate2 = arg.try, onFailure = arg.catch), suspend(() => {
    try {
      return succeed(internalCall(evaluate2));
    } catch (error) {
      return fail2(onFailure ? internalCall(() => onFailure(error)) : new UnknownException(error, "An unknown error occurred in Effect.try"));
    }
  });
};
var clockWith3 = clockWith2, clock = /* @__PURE__ */ clockWith3(succeed);
var diffFiberRefs = (self) => summarized(self, fiberRefs2, diff5);
var contextWith = (f) => map10(context(), f);
var match8 = /* @__PURE__ */ dual(2, (self, options) => matchEffect(self, {
  onFailure: (e) => succeed(options.onFailure(e)),
  onSuccess: (a) => succeed(options.onSuccess(a))
}));
var fiberRefs2 = /* @__PURE__ */ withFiberRuntime((state) => succeed(state.getFiberRefs()));
var ignore = (self) => match8(self, {
  onFailure: constVoid,
  onSuccess: constVoid
});
var logWithLevel = (level) => (...message2) => {
  let levelOption = fromNullable(level), cause2;
  for (let i = 0, len = message2.length; i < len; i++) {
    let msg = message2[i];
    isCause(msg) && (cause2 !== void 0 ? cause2 = sequential(cause2, msg) : cause2 = msg, message2 = [...message2.slice(0, i), ...message2.slice(i + 1)], i--);
  }
  return cause2 === void 0 && (cause2 = empty7), withFiberRuntime((fiberState) => (fiberState.log(message2, cause2, levelOption), void_));
};
var logWarning = /* @__PURE__ */ logWithLevel(Warning);
var mapErrorCause = /* @__PURE__ */ dual(2, (self, f) => matchCauseEffect(self, {
  onFailure: (c) => failCauseSync(() => f(c)),
  onSuccess: succeed
}));
var negate = (self) => map10(self, (b) => !b);
var patchFiberRefs = (patch10) => updateFiberRefs((fiberId2, fiberRefs3) => pipe(patch10, patch6(fiberId2, fiberRefs3)));
var provideService = /* @__PURE__ */ dual(3, (self, tag2, service2) => contextWithEffect((env) => provideContext(self, add4(env, tag2, service2)))), provideServiceEffect = /* @__PURE__ */ dual(3, (self, tag2, effect3) => contextWithEffect((env) => flatMap7(effect3, (service2) => provideContext(self, pipe(env, add4(tag2, service2))))));
var sleep3 = sleep2, succeedNone = /* @__PURE__ */ succeed(/* @__PURE__ */ none2());
var summarized = /* @__PURE__ */ dual(3, (self, summary6, f) => flatMap7(summary6, (start3) => flatMap7(self, (value2) => map10(summary6, (end5) => [f(start3, end5), value2]))));
var tapErrorCause = /* @__PURE__ */ dual(2, (self, f) => matchCauseEffect(self, {
  onFailure: (cause2) => zipRight(f(cause2), failCause(cause2)),
  onSuccess: succeed
}));
var updateFiberRefs = (f) => withFiberRuntime((state) => (state.setFiberRefs(f(state.id(), state.getFiberRefs())), void_));
var when = /* @__PURE__ */ dual(2, (self, condition) => suspend(() => condition() ? map10(self, some2) : succeed(none2())));
var filterDisablePropagation = /* @__PURE__ */ flatMap((span2) => get5(span2.context, DisablePropagation) ? span2._tag === "Span" ? filterDisablePropagation(span2.parent) : none2() : some2(span2));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Exit.js
var isFailure = exitIsFailure, isSuccess = exitIsSuccess;
var all2 = exitCollectAll, die3 = exitDie;
var fail3 = exitFail, failCause3 = exitFailCause;
var interrupt3 = exitInterrupt, map12 = exitMap;
var match9 = exitMatch;
var succeed3 = exitSucceed, void_3 = exitVoid;
var zip3 = exitZip;
var zipRight2 = exitZipRight;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/fiberMessage.js
var OP_INTERRUPT_SIGNAL = "InterruptSignal", OP_STATEFUL = "Stateful", OP_RESUME = "Resume", OP_YIELD_NOW = "YieldNow", interruptSignal = (cause2) => ({
  _tag: OP_INTERRUPT_SIGNAL,
  cause: cause2
}), stateful = (onFiber) => ({
  _tag: OP_STATEFUL,
  onFiber
}), resume = (effect3) => ({
  _tag: OP_RESUME,
  effect: effect3
}), yieldNow3 = () => ({
  _tag: OP_YIELD_NOW
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/fiberScope.js
var FiberScopeSymbolKey = "effect/FiberScope", FiberScopeTypeId = /* @__PURE__ */ Symbol.for(FiberScopeSymbolKey), Global = class {
  [FiberScopeTypeId] = FiberScopeTypeId;
  fiberId = none4;
  roots = /* @__PURE__ */ new Set();
  add(_runtimeFlags, child) {
    this.roots.add(child), child.addObserver(() => {
      this.roots.delete(child);
    });
  }
}, Local = class {
  fiberId;
  parent;
  [FiberScopeTypeId] = FiberScopeTypeId;
  constructor(fiberId2, parent) {
    this.fiberId = fiberId2, this.parent = parent;
  }
  add(_runtimeFlags, child) {
    this.parent.tell(stateful((parentFiber) => {
      parentFiber.addChild(child), child.addObserver(() => {
        parentFiber.removeChild(child);
      });
    }));
  }
}, unsafeMake6 = (fiber) => new Local(fiber.id(), fiber), globalScope = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberScope/Global"), () => new Global());

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/fiber.js
var FiberSymbolKey = "effect/Fiber", FiberTypeId = /* @__PURE__ */ Symbol.for(FiberSymbolKey), fiberVariance2 = {
  /* c8 ignore next */
  _E: (_) => _,
  /* c8 ignore next */
  _A: (_) => _
}, fiberProto = {
  [FiberTypeId]: fiberVariance2,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, RuntimeFiberSymbolKey = "effect/Fiber", RuntimeFiberTypeId = /* @__PURE__ */ Symbol.for(RuntimeFiberSymbolKey);
var _await = (self) => self.await;
var inheritAll = (self) => self.inheritAll;
var join2 = (self) => zipLeft(flatten3(self.await), self.inheritAll);
var _never = {
  ...CommitPrototype,
  commit() {
    return join2(this);
  },
  ...fiberProto,
  id: () => none4,
  await: never,
  children: /* @__PURE__ */ succeed([]),
  inheritAll: never,
  poll: /* @__PURE__ */ succeed(/* @__PURE__ */ none2()),
  interruptAsFork: () => never
};
var currentFiberURI = "effect/FiberCurrent";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/logger.js
var LoggerSymbolKey = "effect/Logger", LoggerTypeId = /* @__PURE__ */ Symbol.for(LoggerSymbolKey), loggerVariance = {
  /* c8 ignore next */
  _Message: (_) => _,
  /* c8 ignore next */
  _Output: (_) => _
}, makeLogger = (log2) => ({
  [LoggerTypeId]: loggerVariance,
  log: log2,
  pipe() {
    return pipeArguments(this, arguments);
  }
});
var none6 = {
  [LoggerTypeId]: loggerVariance,
  log: constVoid,
  pipe() {
    return pipeArguments(this, arguments);
  }
};
var textOnly = /^[^\s"=]*$/, format3 = (quoteValue, whitespace) => ({
  annotations: annotations2,
  cause: cause2,
  date: date2,
  fiberId: fiberId2,
  logLevel: logLevel2,
  message: message2,
  spans
}) => {
  let formatValue = (value2) => value2.match(textOnly) ? value2 : quoteValue(value2), format4 = (label, value2) => `${formatLabel(label)}=${formatValue(value2)}`, append6 = (label, value2) => " " + format4(label, value2), out = format4("timestamp", date2.toISOString());
  out += append6("level", logLevel2.label), out += append6("fiber", threadName(fiberId2));
  let messages2 = ensure(message2);
  for (let i = 0; i < messages2.length; i++)
    out += append6("message", toStringUnknown(messages2[i], whitespace));
  isEmptyType(cause2) || (out += append6("cause", pretty(cause2, {
    renderErrorCause: !0
  })));
  for (let span2 of spans)
    out += " " + render(date2.getTime())(span2);
  for (let [label, value2] of annotations2)
    out += append6(label, toStringUnknown(value2, whitespace));
  return out;
}, escapeDoubleQuotes = (s) => `"${s.replace(/\\([\s\S])|(")/g, "\\$1$2")}"`, stringLogger = /* @__PURE__ */ makeLogger(/* @__PURE__ */ format3(escapeDoubleQuotes));
var colors = {
  bold: "1",
  red: "31",
  green: "32",
  yellow: "33",
  blue: "34",
  cyan: "36",
  white: "37",
  gray: "90",
  black: "30",
  bgBrightRed: "101"
}, logLevelColors = {
  None: [],
  All: [],
  Trace: [colors.gray],
  Debug: [colors.blue],
  Info: [colors.green],
  Warning: [colors.yellow],
  Error: [colors.red],
  Fatal: [colors.bgBrightRed, colors.black]
};
var hasProcessStdout = typeof process == "object" && process !== null && typeof process.stdout == "object" && process.stdout !== null, processStdoutIsTTY = hasProcessStdout && process.stdout.isTTY === !0, hasProcessStdoutOrDeno = hasProcessStdout || "Deno" in globalThis;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/metric/boundaries.js
var MetricBoundariesSymbolKey = "effect/MetricBoundaries", MetricBoundariesTypeId = /* @__PURE__ */ Symbol.for(MetricBoundariesSymbolKey), MetricBoundariesImpl = class {
  values;
  [MetricBoundariesTypeId] = MetricBoundariesTypeId;
  constructor(values3) {
    this.values = values3, this._hash = pipe(string(MetricBoundariesSymbolKey), combine(array2(this.values)));
  }
  _hash;
  [symbol]() {
    return this._hash;
  }
  [symbol2](u) {
    return isMetricBoundaries(u) && equals(this.values, u.values);
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, isMetricBoundaries = (u) => hasProperty(u, MetricBoundariesTypeId), fromIterable7 = (iterable) => {
  let values3 = pipe(iterable, appendAll(of2(Number.POSITIVE_INFINITY)), dedupe);
  return new MetricBoundariesImpl(values3);
};
var exponential = (options) => pipe(makeBy(options.count - 1, (i) => options.start * Math.pow(options.factor, i)), unsafeFromArray, fromIterable7);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/metric/keyType.js
var MetricKeyTypeSymbolKey = "effect/MetricKeyType", MetricKeyTypeTypeId = /* @__PURE__ */ Symbol.for(MetricKeyTypeSymbolKey), CounterKeyTypeSymbolKey = "effect/MetricKeyType/Counter", CounterKeyTypeTypeId = /* @__PURE__ */ Symbol.for(CounterKeyTypeSymbolKey), FrequencyKeyTypeSymbolKey = "effect/MetricKeyType/Frequency", FrequencyKeyTypeTypeId = /* @__PURE__ */ Symbol.for(FrequencyKeyTypeSymbolKey), GaugeKeyTypeSymbolKey = "effect/MetricKeyType/Gauge", GaugeKeyTypeTypeId = /* @__PURE__ */ Symbol.for(GaugeKeyTypeSymbolKey), HistogramKeyTypeSymbolKey = "effect/MetricKeyType/Histogram", HistogramKeyTypeTypeId = /* @__PURE__ */ Symbol.for(HistogramKeyTypeSymbolKey), SummaryKeyTypeSymbolKey = "effect/MetricKeyType/Summary", SummaryKeyTypeTypeId = /* @__PURE__ */ Symbol.for(SummaryKeyTypeSymbolKey), metricKeyTypeVariance = {
  /* c8 ignore next */
  _In: (_) => _,
  /* c8 ignore next */
  _Out: (_) => _
}, CounterKeyType = class {
  incremental;
  bigint;
  [MetricKeyTypeTypeId] = metricKeyTypeVariance;
  [CounterKeyTypeTypeId] = CounterKeyTypeTypeId;
  constructor(incremental, bigint) {
    this.incremental = incremental, this.bigint = bigint, this._hash = string(CounterKeyTypeSymbolKey);
  }
  _hash;
  [symbol]() {
    return this._hash;
  }
  [symbol2](that) {
    return isCounterKey(that);
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, FrequencyKeyTypeHash = /* @__PURE__ */ string(FrequencyKeyTypeSymbolKey), FrequencyKeyType = class {
  preregisteredWords;
  [MetricKeyTypeTypeId] = metricKeyTypeVariance;
  [FrequencyKeyTypeTypeId] = FrequencyKeyTypeTypeId;
  constructor(preregisteredWords) {
    this.preregisteredWords = preregisteredWords;
  }
  [symbol]() {
    return FrequencyKeyTypeHash;
  }
  [symbol2](that) {
    return isFrequencyKey(that);
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, GaugeKeyTypeHash = /* @__PURE__ */ string(GaugeKeyTypeSymbolKey), GaugeKeyType = class {
  bigint;
  [MetricKeyTypeTypeId] = metricKeyTypeVariance;
  [GaugeKeyTypeTypeId] = GaugeKeyTypeTypeId;
  constructor(bigint) {
    this.bigint = bigint;
  }
  [symbol]() {
    return GaugeKeyTypeHash;
  }
  [symbol2](that) {
    return isGaugeKey(that);
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, HistogramKeyType = class {
  boundaries;
  [MetricKeyTypeTypeId] = metricKeyTypeVariance;
  [HistogramKeyTypeTypeId] = HistogramKeyTypeTypeId;
  constructor(boundaries) {
    this.boundaries = boundaries, this._hash = pipe(string(HistogramKeyTypeSymbolKey), combine(hash(this.boundaries)));
  }
  _hash;
  [symbol]() {
    return this._hash;
  }
  [symbol2](that) {
    return isHistogramKey(that) && equals(this.boundaries, that.boundaries);
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, SummaryKeyType = class {
  maxAge;
  maxSize;
  error;
  quantiles;
  [MetricKeyTypeTypeId] = metricKeyTypeVariance;
  [SummaryKeyTypeTypeId] = SummaryKeyTypeTypeId;
  constructor(maxAge, maxSize, error, quantiles) {
    this.maxAge = maxAge, this.maxSize = maxSize, this.error = error, this.quantiles = quantiles, this._hash = pipe(string(SummaryKeyTypeSymbolKey), combine(hash(this.maxAge)), combine(hash(this.maxSize)), combine(hash(this.error)), combine(array2(this.quantiles)));
  }
  _hash;
  [symbol]() {
    return this._hash;
  }
  [symbol2](that) {
    return isSummaryKey(that) && equals(this.maxAge, that.maxAge) && this.maxSize === that.maxSize && this.error === that.error && equals(this.quantiles, that.quantiles);
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, counter = (options) => new CounterKeyType(options?.incremental ?? !1, options?.bigint ?? !1);
var histogram = (boundaries) => new HistogramKeyType(boundaries);
var isCounterKey = (u) => hasProperty(u, CounterKeyTypeTypeId), isFrequencyKey = (u) => hasProperty(u, FrequencyKeyTypeTypeId), isGaugeKey = (u) => hasProperty(u, GaugeKeyTypeTypeId), isHistogramKey = (u) => hasProperty(u, HistogramKeyTypeTypeId), isSummaryKey = (u) => hasProperty(u, SummaryKeyTypeTypeId);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/metric/key.js
var MetricKeySymbolKey = "effect/MetricKey", MetricKeyTypeId = /* @__PURE__ */ Symbol.for(MetricKeySymbolKey), metricKeyVariance = {
  /* c8 ignore next */
  _Type: (_) => _
}, arrayEquivilence = /* @__PURE__ */ getEquivalence2(equals), MetricKeyImpl = class {
  name;
  keyType;
  description;
  tags;
  [MetricKeyTypeId] = metricKeyVariance;
  constructor(name, keyType, description, tags = []) {
    this.name = name, this.keyType = keyType, this.description = description, this.tags = tags, this._hash = pipe(string(this.name + this.description), combine(hash(this.keyType)), combine(array2(this.tags)));
  }
  _hash;
  [symbol]() {
    return this._hash;
  }
  [symbol2](u) {
    return isMetricKey(u) && this.name === u.name && equals(this.keyType, u.keyType) && equals(this.description, u.description) && arrayEquivilence(this.tags, u.tags);
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, isMetricKey = (u) => hasProperty(u, MetricKeyTypeId), counter2 = (name, options) => new MetricKeyImpl(name, counter(options), fromNullable(options?.description));
var histogram2 = (name, boundaries, description) => new MetricKeyImpl(name, histogram(boundaries), fromNullable(description));
var taggedWithLabels = /* @__PURE__ */ dual(2, (self, extraTags) => extraTags.length === 0 ? self : new MetricKeyImpl(self.name, self.keyType, self.description, union(self.tags, extraTags)));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/MutableHashMap.js
var TypeId11 = /* @__PURE__ */ Symbol.for("effect/MutableHashMap"), MutableHashMapProto = {
  [TypeId11]: TypeId11,
  [Symbol.iterator]() {
    return new MutableHashMapIterator(this);
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "MutableHashMap",
      values: Array.from(this).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, MutableHashMapIterator = class _MutableHashMapIterator {
  self;
  referentialIterator;
  bucketIterator;
  constructor(self) {
    this.self = self, this.referentialIterator = self.referential[Symbol.iterator]();
  }
  next() {
    if (this.bucketIterator !== void 0)
      return this.bucketIterator.next();
    let result = this.referentialIterator.next();
    return result.done ? (this.bucketIterator = new BucketIterator(this.self.buckets.values()), this.next()) : result;
  }
  [Symbol.iterator]() {
    return new _MutableHashMapIterator(this.self);
  }
}, BucketIterator = class {
  backing;
  constructor(backing) {
    this.backing = backing;
  }
  currentBucket;
  next() {
    if (this.currentBucket === void 0) {
      let result2 = this.backing.next();
      if (result2.done)
        return result2;
      this.currentBucket = result2.value[Symbol.iterator]();
    }
    let result = this.currentBucket.next();
    return result.done ? (this.currentBucket = void 0, this.next()) : result;
  }
}, empty20 = () => {
  let self = Object.create(MutableHashMapProto);
  return self.referential = /* @__PURE__ */ new Map(), self.buckets = /* @__PURE__ */ new Map(), self.bucketsSize = 0, self;
};
var get11 = /* @__PURE__ */ dual(2, (self, key) => {
  if (isEqual(key) === !1)
    return self.referential.has(key) ? some2(self.referential.get(key)) : none2();
  let hash2 = key[symbol](), bucket = self.buckets.get(hash2);
  return bucket === void 0 ? none2() : getFromBucket(self, bucket, key);
});
var getFromBucket = (self, bucket, key, remove7 = !1) => {
  for (let i = 0, len = bucket.length; i < len; i++)
    if (key[symbol2](bucket[i][0])) {
      let value2 = bucket[i][1];
      return remove7 && (bucket.splice(i, 1), self.bucketsSize--), some2(value2);
    }
  return none2();
}, has4 = /* @__PURE__ */ dual(2, (self, key) => isSome2(get11(self, key))), set5 = /* @__PURE__ */ dual(3, (self, key, value2) => {
  if (isEqual(key) === !1)
    return self.referential.set(key, value2), self;
  let hash2 = key[symbol](), bucket = self.buckets.get(hash2);
  return bucket === void 0 ? (self.buckets.set(hash2, [[key, value2]]), self.bucketsSize++, self) : (removeFromBucket(self, bucket, key), bucket.push([key, value2]), self.bucketsSize++, self);
}), removeFromBucket = (self, bucket, key) => {
  for (let i = 0, len = bucket.length; i < len; i++)
    if (key[symbol2](bucket[i][0])) {
      bucket.splice(i, 1), self.bucketsSize--;
      return;
    }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/metric/state.js
var MetricStateSymbolKey = "effect/MetricState", MetricStateTypeId = /* @__PURE__ */ Symbol.for(MetricStateSymbolKey), CounterStateSymbolKey = "effect/MetricState/Counter", CounterStateTypeId = /* @__PURE__ */ Symbol.for(CounterStateSymbolKey), FrequencyStateSymbolKey = "effect/MetricState/Frequency", FrequencyStateTypeId = /* @__PURE__ */ Symbol.for(FrequencyStateSymbolKey), GaugeStateSymbolKey = "effect/MetricState/Gauge", GaugeStateTypeId = /* @__PURE__ */ Symbol.for(GaugeStateSymbolKey), HistogramStateSymbolKey = "effect/MetricState/Histogram", HistogramStateTypeId = /* @__PURE__ */ Symbol.for(HistogramStateSymbolKey), SummaryStateSymbolKey = "effect/MetricState/Summary", SummaryStateTypeId = /* @__PURE__ */ Symbol.for(SummaryStateSymbolKey), metricStateVariance = {
  /* c8 ignore next */
  _A: (_) => _
}, CounterState = class {
  count;
  [MetricStateTypeId] = metricStateVariance;
  [CounterStateTypeId] = CounterStateTypeId;
  constructor(count3) {
    this.count = count3;
  }
  [symbol]() {
    return pipe(hash(CounterStateSymbolKey), combine(hash(this.count)), cached(this));
  }
  [symbol2](that) {
    return isCounterState(that) && this.count === that.count;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, arrayEquals = /* @__PURE__ */ getEquivalence2(equals), FrequencyState = class {
  occurrences;
  [MetricStateTypeId] = metricStateVariance;
  [FrequencyStateTypeId] = FrequencyStateTypeId;
  constructor(occurrences) {
    this.occurrences = occurrences;
  }
  _hash;
  [symbol]() {
    return pipe(string(FrequencyStateSymbolKey), combine(array2(fromIterable(this.occurrences.entries()))), cached(this));
  }
  [symbol2](that) {
    return isFrequencyState(that) && arrayEquals(fromIterable(this.occurrences.entries()), fromIterable(that.occurrences.entries()));
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, GaugeState = class {
  value;
  [MetricStateTypeId] = metricStateVariance;
  [GaugeStateTypeId] = GaugeStateTypeId;
  constructor(value2) {
    this.value = value2;
  }
  [symbol]() {
    return pipe(hash(GaugeStateSymbolKey), combine(hash(this.value)), cached(this));
  }
  [symbol2](u) {
    return isGaugeState(u) && this.value === u.value;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, HistogramState = class {
  buckets;
  count;
  min;
  max;
  sum;
  [MetricStateTypeId] = metricStateVariance;
  [HistogramStateTypeId] = HistogramStateTypeId;
  constructor(buckets, count3, min4, max6, sum3) {
    this.buckets = buckets, this.count = count3, this.min = min4, this.max = max6, this.sum = sum3;
  }
  [symbol]() {
    return pipe(hash(HistogramStateSymbolKey), combine(hash(this.buckets)), combine(hash(this.count)), combine(hash(this.min)), combine(hash(this.max)), combine(hash(this.sum)), cached(this));
  }
  [symbol2](that) {
    return isHistogramState(that) && equals(this.buckets, that.buckets) && this.count === that.count && this.min === that.min && this.max === that.max && this.sum === that.sum;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, SummaryState = class {
  error;
  quantiles;
  count;
  min;
  max;
  sum;
  [MetricStateTypeId] = metricStateVariance;
  [SummaryStateTypeId] = SummaryStateTypeId;
  constructor(error, quantiles, count3, min4, max6, sum3) {
    this.error = error, this.quantiles = quantiles, this.count = count3, this.min = min4, this.max = max6, this.sum = sum3;
  }
  [symbol]() {
    return pipe(hash(SummaryStateSymbolKey), combine(hash(this.error)), combine(hash(this.quantiles)), combine(hash(this.count)), combine(hash(this.min)), combine(hash(this.max)), combine(hash(this.sum)), cached(this));
  }
  [symbol2](that) {
    return isSummaryState(that) && this.error === that.error && equals(this.quantiles, that.quantiles) && this.count === that.count && this.min === that.min && this.max === that.max && this.sum === that.sum;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, counter3 = (count3) => new CounterState(count3), frequency2 = (occurrences) => new FrequencyState(occurrences), gauge2 = (count3) => new GaugeState(count3), histogram3 = (options) => new HistogramState(options.buckets, options.count, options.min, options.max, options.sum), summary2 = (options) => new SummaryState(options.error, options.quantiles, options.count, options.min, options.max, options.sum);
var isCounterState = (u) => hasProperty(u, CounterStateTypeId), isFrequencyState = (u) => hasProperty(u, FrequencyStateTypeId), isGaugeState = (u) => hasProperty(u, GaugeStateTypeId), isHistogramState = (u) => hasProperty(u, HistogramStateTypeId), isSummaryState = (u) => hasProperty(u, SummaryStateTypeId);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/metric/hook.js
var MetricHookSymbolKey = "effect/MetricHook", MetricHookTypeId = /* @__PURE__ */ Symbol.for(MetricHookSymbolKey), metricHookVariance = {
  /* c8 ignore next */
  _In: (_) => _,
  /* c8 ignore next */
  _Out: (_) => _
}, make26 = (options) => ({
  [MetricHookTypeId]: metricHookVariance,
  pipe() {
    return pipeArguments(this, arguments);
  },
  ...options
});
var bigint02 = /* @__PURE__ */ BigInt(0), counter4 = (key) => {
  let sum3 = key.keyType.bigint ? bigint02 : 0, canUpdate = key.keyType.incremental ? key.keyType.bigint ? (value2) => value2 >= bigint02 : (value2) => value2 >= 0 : (_value) => !0, update5 = (value2) => {
    canUpdate(value2) && (sum3 = sum3 + value2);
  };
  return make26({
    get: () => counter3(sum3),
    update: update5,
    modify: update5
  });
}, frequency3 = (key) => {
  let values3 = /* @__PURE__ */ new Map();
  for (let word of key.keyType.preregisteredWords)
    values3.set(word, 0);
  let update5 = (word) => {
    let slotCount = values3.get(word) ?? 0;
    values3.set(word, slotCount + 1);
  };
  return make26({
    get: () => frequency2(values3),
    update: update5,
    modify: update5
  });
}, gauge3 = (_key, startAt) => {
  let value2 = startAt;
  return make26({
    get: () => gauge2(value2),
    update: (v) => {
      value2 = v;
    },
    modify: (v) => {
      value2 = value2 + v;
    }
  });
}, histogram4 = (key) => {
  let bounds = key.keyType.boundaries.values, size13 = bounds.length, values3 = new Uint32Array(size13 + 1), boundaries = new Float64Array(size13), count3 = 0, sum3 = 0, min4 = Number.MAX_VALUE, max6 = Number.MIN_VALUE;
  pipe(bounds, sort(Order2), map3((n, i) => {
    boundaries[i] = n;
  }));
  let update5 = (value2) => {
    let from = 0, to = size13;
    for (; from !== to; ) {
      let mid = Math.floor(from + (to - from) / 2), boundary = boundaries[mid];
      value2 <= boundary ? to = mid : from = mid, to === from + 1 && (value2 <= boundaries[from] ? to = from : from = to);
    }
    values3[from] = values3[from] + 1, count3 = count3 + 1, sum3 = sum3 + value2, value2 < min4 && (min4 = value2), value2 > max6 && (max6 = value2);
  }, getBuckets = () => {
    let builder = allocate(size13), cumulated = 0;
    for (let i = 0; i < size13; i++) {
      let boundary = boundaries[i], value2 = values3[i];
      cumulated = cumulated + value2, builder[i] = [boundary, cumulated];
    }
    return builder;
  };
  return make26({
    get: () => histogram3({
      buckets: getBuckets(),
      count: count3,
      min: min4,
      max: max6,
      sum: sum3
    }),
    update: update5,
    modify: update5
  });
}, summary3 = (key) => {
  let {
    error,
    maxAge,
    maxSize,
    quantiles
  } = key.keyType, sortedQuantiles = pipe(quantiles, sort(Order2)), values3 = allocate(maxSize), head5 = 0, count3 = 0, sum3 = 0, min4 = 0, max6 = 0, snapshot2 = (now2) => {
    let builder = [], i = 0;
    for (; i !== maxSize - 1; ) {
      let item = values3[i];
      if (item != null) {
        let [t, v] = item, age = millis(now2 - t);
        greaterThanOrEqualTo(age, zero) && lessThanOrEqualTo(age, maxAge) && builder.push(v);
      }
      i = i + 1;
    }
    return calculateQuantiles(error, sortedQuantiles, sort(builder, Order2));
  }, observe = (value2, timestamp) => {
    if (maxSize > 0) {
      head5 = head5 + 1;
      let target = head5 % maxSize;
      values3[target] = [timestamp, value2];
    }
    min4 = count3 === 0 ? value2 : Math.min(min4, value2), max6 = count3 === 0 ? value2 : Math.max(max6, value2), count3 = count3 + 1, sum3 = sum3 + value2;
  };
  return make26({
    get: () => summary2({
      error,
      quantiles: snapshot2(Date.now()),
      count: count3,
      min: min4,
      max: max6,
      sum: sum3
    }),
    update: ([value2, timestamp]) => observe(value2, timestamp),
    modify: ([value2, timestamp]) => observe(value2, timestamp)
  });
}, calculateQuantiles = (error, sortedQuantiles, sortedSamples) => {
  let sampleCount = sortedSamples.length;
  if (!isNonEmptyReadonlyArray(sortedQuantiles))
    return empty2();
  let head5 = sortedQuantiles[0], tail = sortedQuantiles.slice(1), resolvedHead = resolveQuantile(error, sampleCount, none2(), 0, head5, sortedSamples), resolved = of(resolvedHead);
  return tail.forEach((quantile) => {
    resolved.push(resolveQuantile(error, sampleCount, resolvedHead.value, resolvedHead.consumed, quantile, resolvedHead.rest));
  }), map3(resolved, (rq) => [rq.quantile, rq.value]);
}, resolveQuantile = (error, sampleCount, current, consumed, quantile, rest) => {
  let error_1 = error, sampleCount_1 = sampleCount, current_1 = current, consumed_1 = consumed, quantile_1 = quantile, rest_1 = rest, error_2 = error, sampleCount_2 = sampleCount, current_2 = current, consumed_2 = consumed, quantile_2 = quantile, rest_2 = rest;
  for (; ; ) {
    if (!isNonEmptyReadonlyArray(rest_1))
      return {
        quantile: quantile_1,
        value: none2(),
        consumed: consumed_1,
        rest: []
      };
    if (quantile_1 === 1)
      return {
        quantile: quantile_1,
        value: some2(lastNonEmpty(rest_1)),
        consumed: consumed_1 + rest_1.length,
        rest: []
      };
    let headValue = headNonEmpty(rest_1), sameHead = span(rest_1, (n) => n === headValue), desired = quantile_1 * sampleCount_1, allowedError = error_1 / 2 * desired, candConsumed = consumed_1 + sameHead[0].length, candError = Math.abs(candConsumed - desired);
    if (candConsumed < desired - allowedError) {
      error_2 = error_1, sampleCount_2 = sampleCount_1, current_2 = head(rest_1), consumed_2 = candConsumed, quantile_2 = quantile_1, rest_2 = sameHead[1], error_1 = error_2, sampleCount_1 = sampleCount_2, current_1 = current_2, consumed_1 = consumed_2, quantile_1 = quantile_2, rest_1 = rest_2;
      continue;
    }
    if (candConsumed > desired + allowedError) {
      let valueToReturn = isNone2(current_1) ? some2(headValue) : current_1;
      return {
        quantile: quantile_1,
        value: valueToReturn,
        consumed: consumed_1,
        rest: rest_1
      };
    }
    switch (current_1._tag) {
      case "None": {
        error_2 = error_1, sampleCount_2 = sampleCount_1, current_2 = head(rest_1), consumed_2 = candConsumed, quantile_2 = quantile_1, rest_2 = sameHead[1], error_1 = error_2, sampleCount_1 = sampleCount_2, current_1 = current_2, consumed_1 = consumed_2, quantile_1 = quantile_2, rest_1 = rest_2;
        continue;
      }
      case "Some": {
        let prevError = Math.abs(desired - current_1.value);
        if (candError < prevError) {
          error_2 = error_1, sampleCount_2 = sampleCount_1, current_2 = head(rest_1), consumed_2 = candConsumed, quantile_2 = quantile_1, rest_2 = sameHead[1], error_1 = error_2, sampleCount_1 = sampleCount_2, current_1 = current_2, consumed_1 = consumed_2, quantile_1 = quantile_2, rest_1 = rest_2;
          continue;
        }
        return {
          quantile: quantile_1,
          value: some2(current_1.value),
          consumed: consumed_1,
          rest: rest_1
        };
      }
    }
  }
  throw new Error("BUG: MetricHook.resolveQuantiles - please report an issue at https://github.com/Effect-TS/effect/issues");
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/metric/pair.js
var MetricPairSymbolKey = "effect/MetricPair", MetricPairTypeId = /* @__PURE__ */ Symbol.for(MetricPairSymbolKey), metricPairVariance = {
  /* c8 ignore next */
  _Type: (_) => _
};
var unsafeMake7 = (metricKey, metricState) => ({
  [MetricPairTypeId]: metricPairVariance,
  metricKey,
  metricState,
  pipe() {
    return pipeArguments(this, arguments);
  }
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/metric/registry.js
var MetricRegistrySymbolKey = "effect/MetricRegistry", MetricRegistryTypeId = /* @__PURE__ */ Symbol.for(MetricRegistrySymbolKey), MetricRegistryImpl = class {
  [MetricRegistryTypeId] = MetricRegistryTypeId;
  map = /* @__PURE__ */ empty20();
  snapshot() {
    let result = [];
    for (let [key, hook] of this.map)
      result.push(unsafeMake7(key, hook.get()));
    return result;
  }
  get(key) {
    let hook = pipe(this.map, get11(key), getOrUndefined);
    if (hook == null) {
      if (isCounterKey(key.keyType))
        return this.getCounter(key);
      if (isGaugeKey(key.keyType))
        return this.getGauge(key);
      if (isFrequencyKey(key.keyType))
        return this.getFrequency(key);
      if (isHistogramKey(key.keyType))
        return this.getHistogram(key);
      if (isSummaryKey(key.keyType))
        return this.getSummary(key);
      throw new Error("BUG: MetricRegistry.get - unknown MetricKeyType - please report an issue at https://github.com/Effect-TS/effect/issues");
    } else
      return hook;
  }
  getCounter(key) {
    let value2 = pipe(this.map, get11(key), getOrUndefined);
    if (value2 == null) {
      let counter7 = counter4(key);
      pipe(this.map, has4(key)) || pipe(this.map, set5(key, counter7)), value2 = counter7;
    }
    return value2;
  }
  getFrequency(key) {
    let value2 = pipe(this.map, get11(key), getOrUndefined);
    if (value2 == null) {
      let frequency6 = frequency3(key);
      pipe(this.map, has4(key)) || pipe(this.map, set5(key, frequency6)), value2 = frequency6;
    }
    return value2;
  }
  getGauge(key) {
    let value2 = pipe(this.map, get11(key), getOrUndefined);
    if (value2 == null) {
      let gauge6 = gauge3(key, key.keyType.bigint ? BigInt(0) : 0);
      pipe(this.map, has4(key)) || pipe(this.map, set5(key, gauge6)), value2 = gauge6;
    }
    return value2;
  }
  getHistogram(key) {
    let value2 = pipe(this.map, get11(key), getOrUndefined);
    if (value2 == null) {
      let histogram7 = histogram4(key);
      pipe(this.map, has4(key)) || pipe(this.map, set5(key, histogram7)), value2 = histogram7;
    }
    return value2;
  }
  getSummary(key) {
    let value2 = pipe(this.map, get11(key), getOrUndefined);
    if (value2 == null) {
      let summary6 = summary3(key);
      pipe(this.map, has4(key)) || pipe(this.map, set5(key, summary6)), value2 = summary6;
    }
    return value2;
  }
}, make27 = () => new MetricRegistryImpl();

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/metric.js
var MetricSymbolKey = "effect/Metric", MetricTypeId = /* @__PURE__ */ Symbol.for(MetricSymbolKey), metricVariance = {
  /* c8 ignore next */
  _Type: (_) => _,
  /* c8 ignore next */
  _In: (_) => _,
  /* c8 ignore next */
  _Out: (_) => _
}, globalMetricRegistry = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/Metric/globalMetricRegistry"), () => make27()), make28 = function(keyType, unsafeUpdate, unsafeValue, unsafeModify) {
  let metric = Object.assign((effect3) => tap(effect3, (a) => update4(metric, a)), {
    [MetricTypeId]: metricVariance,
    keyType,
    unsafeUpdate,
    unsafeValue,
    unsafeModify,
    register() {
      return this.unsafeValue([]), this;
    },
    pipe() {
      return pipeArguments(this, arguments);
    }
  });
  return metric;
};
var counter5 = (name, options) => fromMetricKey(counter2(name, options));
var fromMetricKey = (key) => {
  let untaggedHook, hookCache = /* @__PURE__ */ new WeakMap(), hook = (extraTags) => {
    if (extraTags.length === 0)
      return untaggedHook !== void 0 || (untaggedHook = globalMetricRegistry.get(key)), untaggedHook;
    let hook2 = hookCache.get(extraTags);
    return hook2 !== void 0 || (hook2 = globalMetricRegistry.get(taggedWithLabels(key, extraTags)), hookCache.set(extraTags, hook2)), hook2;
  };
  return make28(key.keyType, (input2, extraTags) => hook(extraTags).update(input2), (extraTags) => hook(extraTags).get(), (input2, extraTags) => hook(extraTags).modify(input2));
};
var histogram5 = (name, boundaries, description) => fromMetricKey(histogram2(name, boundaries, description)), increment = (self) => isCounterKey(self.keyType) ? update4(self, self.keyType.bigint ? BigInt(1) : 1) : modify5(self, self.keyType.bigint ? BigInt(1) : 1);
var modify5 = /* @__PURE__ */ dual(2, (self, input2) => fiberRefGetWith(currentMetricLabels, (tags) => sync(() => self.unsafeModify(input2, tags))));
var tagged = /* @__PURE__ */ dual(3, (self, key, value2) => taggedWithLabels2(self, [make25(key, value2)]));
var taggedWithLabels2 = /* @__PURE__ */ dual(2, (self, extraTags) => make28(self.keyType, (input2, extraTags1) => self.unsafeUpdate(input2, union(extraTags, extraTags1)), (extraTags1) => self.unsafeValue(union(extraTags, extraTags1)), (input2, extraTags1) => self.unsafeModify(input2, union(extraTags, extraTags1))));
var update4 = /* @__PURE__ */ dual(2, (self, input2) => fiberRefGetWith(currentMetricLabels, (tags) => sync(() => self.unsafeUpdate(input2, tags))));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/request.js
var RequestSymbolKey = "effect/Request", RequestTypeId = /* @__PURE__ */ Symbol.for(RequestSymbolKey), requestVariance = {
  /* c8 ignore next */
  _E: (_) => _,
  /* c8 ignore next */
  _A: (_) => _
}, RequestPrototype = {
  ...StructuralPrototype,
  [RequestTypeId]: requestVariance
};
var complete = /* @__PURE__ */ dual(2, (self, result) => fiberRefGetWith(currentRequestMap, (map24) => sync(() => {
  if (map24.has(self)) {
    let entry = map24.get(self);
    entry.state.completed || (entry.state.completed = !0, deferredUnsafeDone(entry.result, result));
  }
})));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/redBlackTree/iterator.js
var Direction = {
  Forward: 0,
  Backward: 1
}, RedBlackTreeIterator = class _RedBlackTreeIterator {
  self;
  stack;
  direction;
  count = 0;
  constructor(self, stack, direction) {
    this.self = self, this.stack = stack, this.direction = direction;
  }
  /**
   * Clones the iterator
   */
  clone() {
    return new _RedBlackTreeIterator(this.self, this.stack.slice(), this.direction);
  }
  /**
   * Reverse the traversal direction
   */
  reversed() {
    return new _RedBlackTreeIterator(this.self, this.stack.slice(), this.direction === Direction.Forward ? Direction.Backward : Direction.Forward);
  }
  /**
   * Iterator next
   */
  next() {
    let entry = this.entry;
    switch (this.count++, this.direction === Direction.Forward ? this.moveNext() : this.movePrev(), entry._tag) {
      case "None":
        return {
          done: !0,
          value: this.count
        };
      case "Some":
        return {
          done: !1,
          value: entry.value
        };
    }
  }
  /**
   * Returns the key
   */
  get key() {
    return this.stack.length > 0 ? some2(this.stack[this.stack.length - 1].key) : none2();
  }
  /**
   * Returns the value
   */
  get value() {
    return this.stack.length > 0 ? some2(this.stack[this.stack.length - 1].value) : none2();
  }
  /**
   * Returns the key
   */
  get entry() {
    return map2(last(this.stack), (node) => [node.key, node.value]);
  }
  /**
   * Returns the position of this iterator in the sorted list
   */
  get index() {
    let idx = 0, stack = this.stack;
    if (stack.length === 0) {
      let r = this.self._root;
      return r != null ? r.count : 0;
    } else stack[stack.length - 1].left != null && (idx = stack[stack.length - 1].left.count);
    for (let s = stack.length - 2; s >= 0; --s)
      stack[s + 1] === stack[s].right && (++idx, stack[s].left != null && (idx += stack[s].left.count));
    return idx;
  }
  /**
   * Advances iterator to next element in list
   */
  moveNext() {
    let stack = this.stack;
    if (stack.length === 0)
      return;
    let n = stack[stack.length - 1];
    if (n.right != null)
      for (n = n.right; n != null; )
        stack.push(n), n = n.left;
    else
      for (stack.pop(); stack.length > 0 && stack[stack.length - 1].right === n; )
        n = stack[stack.length - 1], stack.pop();
  }
  /**
   * Checks if there is a next element
   */
  get hasNext() {
    let stack = this.stack;
    if (stack.length === 0)
      return !1;
    if (stack[stack.length - 1].right != null)
      return !0;
    for (let s = stack.length - 1; s > 0; --s)
      if (stack[s - 1].left === stack[s])
        return !0;
    return !1;
  }
  /**
   * Advances iterator to previous element in list
   */
  movePrev() {
    let stack = this.stack;
    if (stack.length === 0)
      return;
    let n = stack[stack.length - 1];
    if (n != null && n.left != null)
      for (n = n.left; n != null; )
        stack.push(n), n = n.right;
    else
      for (stack.pop(); stack.length > 0 && stack[stack.length - 1].left === n; )
        n = stack[stack.length - 1], stack.pop();
  }
  /**
   * Checks if there is a previous element
   */
  get hasPrev() {
    let stack = this.stack;
    if (stack.length === 0)
      return !1;
    if (stack[stack.length - 1].left != null)
      return !0;
    for (let s = stack.length - 1; s > 0; --s)
      if (stack[s - 1].right === stack[s])
        return !0;
    return !1;
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/redBlackTree/node.js
var Color = {
  Red: 0,
  Black: 1
}, clone = ({
  color,
  count: count3,
  key,
  left: left3,
  right: right3,
  value: value2
}) => ({
  color,
  key,
  value: value2,
  left: left3,
  right: right3,
  count: count3
});
function swap2(n, v) {
  n.key = v.key, n.value = v.value, n.left = v.left, n.right = v.right, n.color = v.color, n.count = v.count;
}
var repaint = ({
  count: count3,
  key,
  left: left3,
  right: right3,
  value: value2
}, color) => ({
  color,
  key,
  value: value2,
  left: left3,
  right: right3,
  count: count3
}), recount = (node) => {
  node.count = 1 + (node.left?.count ?? 0) + (node.right?.count ?? 0);
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/redBlackTree.js
var RedBlackTreeSymbolKey = "effect/RedBlackTree", RedBlackTreeTypeId = /* @__PURE__ */ Symbol.for(RedBlackTreeSymbolKey), redBlackTreeVariance = {
  /* c8 ignore next */
  _Key: (_) => _,
  /* c8 ignore next */
  _Value: (_) => _
}, RedBlackTreeProto = {
  [RedBlackTreeTypeId]: redBlackTreeVariance,
  [symbol]() {
    let hash2 = hash(RedBlackTreeSymbolKey);
    for (let item of this)
      hash2 ^= pipe(hash(item[0]), combine(hash(item[1])));
    return cached(this, hash2);
  },
  [symbol2](that) {
    if (isRedBlackTree(that)) {
      if ((this._root?.count ?? 0) !== (that._root?.count ?? 0))
        return !1;
      let entries2 = Array.from(that);
      return Array.from(this).every((itemSelf, i) => {
        let itemThat = entries2[i];
        return equals(itemSelf[0], itemThat[0]) && equals(itemSelf[1], itemThat[1]);
      });
    }
    return !1;
  },
  [Symbol.iterator]() {
    let stack = [], n = this._root;
    for (; n != null; )
      stack.push(n), n = n.left;
    return new RedBlackTreeIterator(this, stack, Direction.Forward);
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "RedBlackTree",
      values: Array.from(this).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, makeImpl3 = (ord, root) => {
  let tree = Object.create(RedBlackTreeProto);
  return tree._ord = ord, tree._root = root, tree;
}, isRedBlackTree = (u) => hasProperty(u, RedBlackTreeTypeId);
var findFirst3 = /* @__PURE__ */ dual(2, (self, key) => {
  let cmp = self._ord, node = self._root;
  for (; node !== void 0; ) {
    let d = cmp(key, node.key);
    if (equals(key, node.key))
      return some2(node.value);
    d <= 0 ? node = node.left : node = node.right;
  }
  return none2();
});
var has5 = /* @__PURE__ */ dual(2, (self, key) => isSome2(findFirst3(self, key))), insert = /* @__PURE__ */ dual(3, (self, key, value2) => {
  let cmp = self._ord, n = self._root, n_stack = [], d_stack = [];
  for (; n != null; ) {
    let d = cmp(key, n.key);
    n_stack.push(n), d_stack.push(d), d <= 0 ? n = n.left : n = n.right;
  }
  n_stack.push({
    color: Color.Red,
    key,
    value: value2,
    left: void 0,
    right: void 0,
    count: 1
  });
  for (let s = n_stack.length - 2; s >= 0; --s) {
    let n2 = n_stack[s];
    d_stack[s] <= 0 ? n_stack[s] = {
      color: n2.color,
      key: n2.key,
      value: n2.value,
      left: n_stack[s + 1],
      right: n2.right,
      count: n2.count + 1
    } : n_stack[s] = {
      color: n2.color,
      key: n2.key,
      value: n2.value,
      left: n2.left,
      right: n_stack[s + 1],
      count: n2.count + 1
    };
  }
  for (let s = n_stack.length - 1; s > 1; --s) {
    let p = n_stack[s - 1], n3 = n_stack[s];
    if (p.color === Color.Black || n3.color === Color.Black)
      break;
    let pp = n_stack[s - 2];
    if (pp.left === p)
      if (p.left === n3) {
        let y = pp.right;
        if (y && y.color === Color.Red)
          p.color = Color.Black, pp.right = repaint(y, Color.Black), pp.color = Color.Red, s -= 1;
        else {
          if (pp.color = Color.Red, pp.left = p.right, p.color = Color.Black, p.right = pp, n_stack[s - 2] = p, n_stack[s - 1] = n3, recount(pp), recount(p), s >= 3) {
            let ppp = n_stack[s - 3];
            ppp.left === pp ? ppp.left = p : ppp.right = p;
          }
          break;
        }
      } else {
        let y = pp.right;
        if (y && y.color === Color.Red)
          p.color = Color.Black, pp.right = repaint(y, Color.Black), pp.color = Color.Red, s -= 1;
        else {
          if (p.right = n3.left, pp.color = Color.Red, pp.left = n3.right, n3.color = Color.Black, n3.left = p, n3.right = pp, n_stack[s - 2] = n3, n_stack[s - 1] = p, recount(pp), recount(p), recount(n3), s >= 3) {
            let ppp = n_stack[s - 3];
            ppp.left === pp ? ppp.left = n3 : ppp.right = n3;
          }
          break;
        }
      }
    else if (p.right === n3) {
      let y = pp.left;
      if (y && y.color === Color.Red)
        p.color = Color.Black, pp.left = repaint(y, Color.Black), pp.color = Color.Red, s -= 1;
      else {
        if (pp.color = Color.Red, pp.right = p.left, p.color = Color.Black, p.left = pp, n_stack[s - 2] = p, n_stack[s - 1] = n3, recount(pp), recount(p), s >= 3) {
          let ppp = n_stack[s - 3];
          ppp.right === pp ? ppp.right = p : ppp.left = p;
        }
        break;
      }
    } else {
      let y = pp.left;
      if (y && y.color === Color.Red)
        p.color = Color.Black, pp.left = repaint(y, Color.Black), pp.color = Color.Red, s -= 1;
      else {
        if (p.left = n3.right, pp.color = Color.Red, pp.right = n3.left, n3.color = Color.Black, n3.right = p, n3.left = pp, n_stack[s - 2] = n3, n_stack[s - 1] = p, recount(pp), recount(p), recount(n3), s >= 3) {
          let ppp = n_stack[s - 3];
          ppp.right === pp ? ppp.right = n3 : ppp.left = n3;
        }
        break;
      }
    }
  }
  return n_stack[0].color = Color.Black, makeImpl3(self._ord, n_stack[0]);
}), keysForward = (self) => keys4(self, Direction.Forward);
var keys4 = (self, direction) => {
  let begin = self[Symbol.iterator](), count3 = 0;
  return {
    [Symbol.iterator]: () => keys4(self, direction),
    next: () => {
      count3++;
      let entry = begin.key;
      switch (direction === Direction.Forward ? begin.moveNext() : begin.movePrev(), entry._tag) {
        case "None":
          return {
            done: !0,
            value: count3
          };
        case "Some":
          return {
            done: !1,
            value: entry.value
          };
      }
    }
  };
};
var removeFirst = /* @__PURE__ */ dual(2, (self, key) => {
  if (!has5(self, key))
    return self;
  let ord = self._ord, cmp = ord, node = self._root, stack = [];
  for (; node !== void 0; ) {
    let d = cmp(key, node.key);
    stack.push(node), equals(key, node.key) ? node = void 0 : d <= 0 ? node = node.left : node = node.right;
  }
  if (stack.length === 0)
    return self;
  let cstack = new Array(stack.length), n = stack[stack.length - 1];
  cstack[cstack.length - 1] = {
    color: n.color,
    key: n.key,
    value: n.value,
    left: n.left,
    right: n.right,
    count: n.count
  };
  for (let i = stack.length - 2; i >= 0; --i)
    n = stack[i], n.left === stack[i + 1] ? cstack[i] = {
      color: n.color,
      key: n.key,
      value: n.value,
      left: cstack[i + 1],
      right: n.right,
      count: n.count
    } : cstack[i] = {
      color: n.color,
      key: n.key,
      value: n.value,
      left: n.left,
      right: cstack[i + 1],
      count: n.count
    };
  if (n = cstack[cstack.length - 1], n.left !== void 0 && n.right !== void 0) {
    let split2 = cstack.length;
    for (n = n.left; n.right != null; )
      cstack.push(n), n = n.right;
    let v = cstack[split2 - 1];
    cstack.push({
      color: n.color,
      key: v.key,
      value: v.value,
      left: n.left,
      right: n.right,
      count: n.count
    }), cstack[split2 - 1].key = n.key, cstack[split2 - 1].value = n.value;
    for (let i = cstack.length - 2; i >= split2; --i)
      n = cstack[i], cstack[i] = {
        color: n.color,
        key: n.key,
        value: n.value,
        left: n.left,
        right: cstack[i + 1],
        count: n.count
      };
    cstack[split2 - 1].left = cstack[split2];
  }
  if (n = cstack[cstack.length - 1], n.color === Color.Red) {
    let p = cstack[cstack.length - 2];
    p.left === n ? p.left = void 0 : p.right === n && (p.right = void 0), cstack.pop();
    for (let i = 0; i < cstack.length; ++i)
      cstack[i].count--;
    return makeImpl3(ord, cstack[0]);
  } else if (n.left !== void 0 || n.right !== void 0) {
    n.left !== void 0 ? swap2(n, n.left) : n.right !== void 0 && swap2(n, n.right), n.color = Color.Black;
    for (let i = 0; i < cstack.length - 1; ++i)
      cstack[i].count--;
    return makeImpl3(ord, cstack[0]);
  } else {
    if (cstack.length === 1)
      return makeImpl3(ord, void 0);
    {
      for (let i = 0; i < cstack.length; ++i)
        cstack[i].count--;
      let parent = cstack[cstack.length - 2];
      fixDoubleBlack(cstack), parent.left === n ? parent.left = void 0 : parent.right = void 0;
    }
  }
  return makeImpl3(ord, cstack[0]);
});
var fixDoubleBlack = (stack) => {
  let n, p, s, z;
  for (let i = stack.length - 1; i >= 0; --i) {
    if (n = stack[i], i === 0) {
      n.color = Color.Black;
      return;
    }
    if (p = stack[i - 1], p.left === n) {
      if (s = p.right, s !== void 0 && s.right !== void 0 && s.right.color === Color.Red) {
        if (s = p.right = clone(s), z = s.right = clone(s.right), p.right = s.left, s.left = p, s.right = z, s.color = p.color, n.color = Color.Black, p.color = Color.Black, z.color = Color.Black, recount(p), recount(s), i > 1) {
          let pp = stack[i - 2];
          pp.left === p ? pp.left = s : pp.right = s;
        }
        stack[i - 1] = s;
        return;
      } else if (s !== void 0 && s.left !== void 0 && s.left.color === Color.Red) {
        if (s = p.right = clone(s), z = s.left = clone(s.left), p.right = z.left, s.left = z.right, z.left = p, z.right = s, z.color = p.color, p.color = Color.Black, s.color = Color.Black, n.color = Color.Black, recount(p), recount(s), recount(z), i > 1) {
          let pp = stack[i - 2];
          pp.left === p ? pp.left = z : pp.right = z;
        }
        stack[i - 1] = z;
        return;
      }
      if (s !== void 0 && s.color === Color.Black)
        if (p.color === Color.Red) {
          p.color = Color.Black, p.right = repaint(s, Color.Red);
          return;
        } else {
          p.right = repaint(s, Color.Red);
          continue;
        }
      else if (s !== void 0) {
        if (s = clone(s), p.right = s.left, s.left = p, s.color = p.color, p.color = Color.Red, recount(p), recount(s), i > 1) {
          let pp = stack[i - 2];
          pp.left === p ? pp.left = s : pp.right = s;
        }
        stack[i - 1] = s, stack[i] = p, i + 1 < stack.length ? stack[i + 1] = n : stack.push(n), i = i + 2;
      }
    } else {
      if (s = p.left, s !== void 0 && s.left !== void 0 && s.left.color === Color.Red) {
        if (s = p.left = clone(s), z = s.left = clone(s.left), p.left = s.right, s.right = p, s.left = z, s.color = p.color, n.color = Color.Black, p.color = Color.Black, z.color = Color.Black, recount(p), recount(s), i > 1) {
          let pp = stack[i - 2];
          pp.right === p ? pp.right = s : pp.left = s;
        }
        stack[i - 1] = s;
        return;
      } else if (s !== void 0 && s.right !== void 0 && s.right.color === Color.Red) {
        if (s = p.left = clone(s), z = s.right = clone(s.right), p.left = z.right, s.right = z.left, z.right = p, z.left = s, z.color = p.color, p.color = Color.Black, s.color = Color.Black, n.color = Color.Black, recount(p), recount(s), recount(z), i > 1) {
          let pp = stack[i - 2];
          pp.right === p ? pp.right = z : pp.left = z;
        }
        stack[i - 1] = z;
        return;
      }
      if (s !== void 0 && s.color === Color.Black)
        if (p.color === Color.Red) {
          p.color = Color.Black, p.left = repaint(s, Color.Red);
          return;
        } else {
          p.left = repaint(s, Color.Red);
          continue;
        }
      else if (s !== void 0) {
        if (s = clone(s), p.left = s.right, s.right = p, s.color = p.color, p.color = Color.Red, recount(p), recount(s), i > 1) {
          let pp = stack[i - 2];
          pp.right === p ? pp.right = s : pp.left = s;
        }
        stack[i - 1] = s, stack[i] = p, i + 1 < stack.length ? stack[i + 1] = n : stack.push(n), i = i + 2;
      }
    }
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/RedBlackTree.js
var has6 = has5, insert2 = insert, keys5 = keysForward;
var removeFirst2 = removeFirst;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/SortedSet.js
var TypeId12 = /* @__PURE__ */ Symbol.for("effect/SortedSet"), SortedSetProto = {
  [TypeId12]: {
    _A: (_) => _
  },
  [symbol]() {
    return pipe(hash(this.keyTree), combine(hash(TypeId12)), cached(this));
  },
  [symbol2](that) {
    return isSortedSet(that) && equals(this.keyTree, that.keyTree);
  },
  [Symbol.iterator]() {
    return keys5(this.keyTree);
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "SortedSet",
      values: Array.from(this).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, fromTree = (keyTree) => {
  let a = Object.create(SortedSetProto);
  return a.keyTree = keyTree, a;
}, isSortedSet = (u) => hasProperty(u, TypeId12);
var add5 = /* @__PURE__ */ dual(2, (self, value2) => has6(self.keyTree, value2) ? self : fromTree(insert2(self.keyTree, value2, !0)));
var remove5 = /* @__PURE__ */ dual(2, (self, value2) => fromTree(removeFirst2(self.keyTree, value2)));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/supervisor.js
var SupervisorSymbolKey = "effect/Supervisor", SupervisorTypeId = /* @__PURE__ */ Symbol.for(SupervisorSymbolKey), supervisorVariance = {
  /* c8 ignore next */
  _T: (_) => _
}, ProxySupervisor = class _ProxySupervisor {
  underlying;
  value0;
  [SupervisorTypeId] = supervisorVariance;
  constructor(underlying, value0) {
    this.underlying = underlying, this.value0 = value0;
  }
  get value() {
    return this.value0;
  }
  onStart(context5, effect3, parent, fiber) {
    this.underlying.onStart(context5, effect3, parent, fiber);
  }
  onEnd(value2, fiber) {
    this.underlying.onEnd(value2, fiber);
  }
  onEffect(fiber, effect3) {
    this.underlying.onEffect(fiber, effect3);
  }
  onSuspend(fiber) {
    this.underlying.onSuspend(fiber);
  }
  onResume(fiber) {
    this.underlying.onResume(fiber);
  }
  map(f) {
    return new _ProxySupervisor(this, pipe(this.value, map10(f)));
  }
  zip(right3) {
    return new Zip(this, right3);
  }
}, Zip = class _Zip {
  left;
  right;
  _tag = "Zip";
  [SupervisorTypeId] = supervisorVariance;
  constructor(left3, right3) {
    this.left = left3, this.right = right3;
  }
  get value() {
    return zip2(this.left.value, this.right.value);
  }
  onStart(context5, effect3, parent, fiber) {
    this.left.onStart(context5, effect3, parent, fiber), this.right.onStart(context5, effect3, parent, fiber);
  }
  onEnd(value2, fiber) {
    this.left.onEnd(value2, fiber), this.right.onEnd(value2, fiber);
  }
  onEffect(fiber, effect3) {
    this.left.onEffect(fiber, effect3), this.right.onEffect(fiber, effect3);
  }
  onSuspend(fiber) {
    this.left.onSuspend(fiber), this.right.onSuspend(fiber);
  }
  onResume(fiber) {
    this.left.onResume(fiber), this.right.onResume(fiber);
  }
  map(f) {
    return new ProxySupervisor(this, pipe(this.value, map10(f)));
  }
  zip(right3) {
    return new _Zip(this, right3);
  }
}, isZip = (self) => hasProperty(self, SupervisorTypeId) && isTagged(self, "Zip"), Track = class {
  [SupervisorTypeId] = supervisorVariance;
  fibers = /* @__PURE__ */ new Set();
  get value() {
    return sync(() => Array.from(this.fibers));
  }
  onStart(_context, _effect, _parent, fiber) {
    this.fibers.add(fiber);
  }
  onEnd(_value, fiber) {
    this.fibers.delete(fiber);
  }
  onEffect(_fiber, _effect) {
  }
  onSuspend(_fiber) {
  }
  onResume(_fiber) {
  }
  map(f) {
    return new ProxySupervisor(this, pipe(this.value, map10(f)));
  }
  zip(right3) {
    return new Zip(this, right3);
  }
  onRun(execution, _fiber) {
    return execution();
  }
}, Const = class {
  effect;
  [SupervisorTypeId] = supervisorVariance;
  constructor(effect3) {
    this.effect = effect3;
  }
  get value() {
    return this.effect;
  }
  onStart(_context, _effect, _parent, _fiber) {
  }
  onEnd(_value, _fiber) {
  }
  onEffect(_fiber, _effect) {
  }
  onSuspend(_fiber) {
  }
  onResume(_fiber) {
  }
  map(f) {
    return new ProxySupervisor(this, pipe(this.value, map10(f)));
  }
  zip(right3) {
    return new Zip(this, right3);
  }
  onRun(execution, _fiber) {
    return execution();
  }
}, FibersIn = class {
  ref;
  [SupervisorTypeId] = supervisorVariance;
  constructor(ref) {
    this.ref = ref;
  }
  get value() {
    return sync(() => get6(this.ref));
  }
  onStart(_context, _effect, _parent, fiber) {
    pipe(this.ref, set2(pipe(get6(this.ref), add5(fiber))));
  }
  onEnd(_value, fiber) {
    pipe(this.ref, set2(pipe(get6(this.ref), remove5(fiber))));
  }
  onEffect(_fiber, _effect) {
  }
  onSuspend(_fiber) {
  }
  onResume(_fiber) {
  }
  map(f) {
    return new ProxySupervisor(this, pipe(this.value, map10(f)));
  }
  zip(right3) {
    return new Zip(this, right3);
  }
  onRun(execution, _fiber) {
    return execution();
  }
};
var fromEffect = (effect3) => new Const(effect3), none7 = /* @__PURE__ */ globalValue("effect/Supervisor/none", () => fromEffect(void_));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Differ.js
var make30 = make14;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/supervisor/patch.js
var OP_EMPTY3 = "Empty", OP_ADD_SUPERVISOR = "AddSupervisor", OP_REMOVE_SUPERVISOR = "RemoveSupervisor", OP_AND_THEN2 = "AndThen", empty23 = {
  _tag: OP_EMPTY3
}, combine8 = (self, that) => ({
  _tag: OP_AND_THEN2,
  first: self,
  second: that
}), patch8 = (self, supervisor) => patchLoop(supervisor, of2(self)), patchLoop = (_supervisor, _patches) => {
  let supervisor = _supervisor, patches = _patches;
  for (; isNonEmpty(patches); ) {
    let head5 = headNonEmpty2(patches);
    switch (head5._tag) {
      case OP_EMPTY3: {
        patches = tailNonEmpty2(patches);
        break;
      }
      case OP_ADD_SUPERVISOR: {
        supervisor = supervisor.zip(head5.supervisor), patches = tailNonEmpty2(patches);
        break;
      }
      case OP_REMOVE_SUPERVISOR: {
        supervisor = removeSupervisor(supervisor, head5.supervisor), patches = tailNonEmpty2(patches);
        break;
      }
      case OP_AND_THEN2: {
        patches = prepend2(head5.first)(prepend2(head5.second)(tailNonEmpty2(patches)));
        break;
      }
    }
  }
  return supervisor;
}, removeSupervisor = (self, that) => equals(self, that) ? none7 : isZip(self) ? removeSupervisor(self.left, that).zip(removeSupervisor(self.right, that)) : self, toSet2 = (self) => equals(self, none7) ? empty6() : isZip(self) ? pipe(toSet2(self.left), union3(toSet2(self.right))) : make7(self), diff7 = (oldValue, newValue) => {
  if (equals(oldValue, newValue))
    return empty23;
  let oldSupervisors = toSet2(oldValue), newSupervisors = toSet2(newValue), added = pipe(newSupervisors, difference3(oldSupervisors), reduce5(empty23, (patch10, supervisor) => combine8(patch10, {
    _tag: OP_ADD_SUPERVISOR,
    supervisor
  }))), removed = pipe(oldSupervisors, difference3(newSupervisors), reduce5(empty23, (patch10, supervisor) => combine8(patch10, {
    _tag: OP_REMOVE_SUPERVISOR,
    supervisor
  })));
  return combine8(added, removed);
}, differ2 = /* @__PURE__ */ make30({
  empty: empty23,
  patch: patch8,
  combine: combine8,
  diff: diff7
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/fiberRuntime.js
var fiberStarted = /* @__PURE__ */ counter5("effect_fiber_started", {
  incremental: !0
}), fiberActive = /* @__PURE__ */ counter5("effect_fiber_active"), fiberSuccesses = /* @__PURE__ */ counter5("effect_fiber_successes", {
  incremental: !0
}), fiberFailures = /* @__PURE__ */ counter5("effect_fiber_failures", {
  incremental: !0
}), fiberLifetimes = /* @__PURE__ */ tagged(/* @__PURE__ */ histogram5("effect_fiber_lifetimes", /* @__PURE__ */ exponential({
  start: 0.5,
  factor: 2,
  count: 35
})), "time_unit", "milliseconds"), EvaluationSignalContinue = "Continue", EvaluationSignalDone = "Done", EvaluationSignalYieldNow = "Yield", runtimeFiberVariance = {
  /* c8 ignore next */
  _E: (_) => _,
  /* c8 ignore next */
  _A: (_) => _
}, absurd = (_) => {
  throw new Error(`BUG: FiberRuntime - ${toStringUnknown(_)} - please report an issue at https://github.com/Effect-TS/effect/issues`);
}, YieldedOp = /* @__PURE__ */ Symbol.for("effect/internal/fiberRuntime/YieldedOp"), yieldedOpChannel = /* @__PURE__ */ globalValue("effect/internal/fiberRuntime/yieldedOpChannel", () => ({
  currentOp: null
})), contOpSuccess = {
  [OP_ON_SUCCESS]: (_, cont, value2) => internalCall(() => cont.effect_instruction_i1(value2)),
  OnStep: (_, _cont, value2) => exitSucceed(exitSucceed(value2)),
  [OP_ON_SUCCESS_AND_FAILURE]: (_, cont, value2) => internalCall(() => cont.effect_instruction_i2(value2)),
  [OP_REVERT_FLAGS]: (self, cont, value2) => (self.patchRuntimeFlags(self.currentRuntimeFlags, cont.patch), interruptible(self.currentRuntimeFlags) && self.isInterrupted() ? exitFailCause(self.getInterruptedCause()) : exitSucceed(value2)),
  [OP_WHILE]: (self, cont, value2) => (internalCall(() => cont.effect_instruction_i2(value2)), internalCall(() => cont.effect_instruction_i0()) ? (self.pushStack(cont), internalCall(() => cont.effect_instruction_i1())) : void_),
  [OP_ITERATOR]: (self, cont, value2) => {
    for (; ; ) {
      let state = internalCall(() => cont.effect_instruction_i0.next(value2));
      if (state.done)
        return exitSucceed(state.value);
      let primitive2 = yieldWrapGet(state.value);
      if (exitIsExit(primitive2)) {
        if (primitive2._tag === "Failure")
          return primitive2;
      } else return self.pushStack(cont), primitive2;
      value2 = primitive2.value;
    }
  }
}, drainQueueWhileRunningTable = {
  [OP_INTERRUPT_SIGNAL]: (self, runtimeFlags2, cur, message2) => (self.processNewInterruptSignal(message2.cause), interruptible(runtimeFlags2) ? exitFailCause(message2.cause) : cur),
  [OP_RESUME]: (_self, _runtimeFlags, _cur, _message) => {
    throw new Error("It is illegal to have multiple concurrent run loops in a single fiber");
  },
  [OP_STATEFUL]: (self, runtimeFlags2, cur, message2) => (message2.onFiber(self, running2(runtimeFlags2)), cur),
  [OP_YIELD_NOW]: (_self, _runtimeFlags, cur, _message) => flatMap7(yieldNow(), () => cur)
}, runBlockedRequests = (self) => forEachSequentialDiscard(flatten2(self), (requestsByRequestResolver) => forEachConcurrentDiscard(sequentialCollectionToChunk(requestsByRequestResolver), ([dataSource, sequential5]) => {
  let map24 = /* @__PURE__ */ new Map(), arr = [];
  for (let block of sequential5) {
    arr.push(toReadonlyArray(block));
    for (let entry of block)
      map24.set(entry.request, entry);
  }
  let flat = arr.flat();
  return fiberRefLocally(invokeWithInterrupt(dataSource.runAll(arr), flat, () => flat.forEach((entry) => {
    entry.listeners.interrupted = !0;
  })), currentRequestMap, map24);
}, !1, !1)), _version = /* @__PURE__ */ getCurrentVersion(), FiberRuntime = class extends Class2 {
  [FiberTypeId] = fiberVariance2;
  [RuntimeFiberTypeId] = runtimeFiberVariance;
  _fiberRefs;
  _fiberId;
  _queue = /* @__PURE__ */ new Array();
  _children = null;
  _observers = /* @__PURE__ */ new Array();
  _running = !1;
  _stack = [];
  _asyncInterruptor = null;
  _asyncBlockingOn = null;
  _exitValue = null;
  _steps = [];
  _isYielding = !1;
  currentRuntimeFlags;
  currentOpCount = 0;
  currentSupervisor;
  currentScheduler;
  currentTracer;
  currentSpan;
  currentContext;
  currentDefaultServices;
  constructor(fiberId2, fiberRefs0, runtimeFlags0) {
    if (super(), this.currentRuntimeFlags = runtimeFlags0, this._fiberId = fiberId2, this._fiberRefs = fiberRefs0, runtimeMetrics(runtimeFlags0)) {
      let tags = this.getFiberRef(currentMetricLabels);
      fiberStarted.unsafeUpdate(1, tags), fiberActive.unsafeUpdate(1, tags);
    }
    this.refreshRefCache();
  }
  commit() {
    return join2(this);
  }
  /**
   * The identity of the fiber.
   */
  id() {
    return this._fiberId;
  }
  /**
   * Begins execution of the effect associated with this fiber on in the
   * background. This can be called to "kick off" execution of a fiber after
   * it has been created.
   */
  resume(effect3) {
    this.tell(resume(effect3));
  }
  /**
   * The status of the fiber.
   */
  get status() {
    return this.ask((_, status2) => status2);
  }
  /**
   * Gets the fiber runtime flags.
   */
  get runtimeFlags() {
    return this.ask((state, status2) => isDone2(status2) ? state.currentRuntimeFlags : status2.runtimeFlags);
  }
  /**
   * Returns the current `FiberScope` for the fiber.
   */
  scope() {
    return unsafeMake6(this);
  }
  /**
   * Retrieves the immediate children of the fiber.
   */
  get children() {
    return this.ask((fiber) => Array.from(fiber.getChildren()));
  }
  /**
   * Gets the fiber's set of children.
   */
  getChildren() {
    return this._children === null && (this._children = /* @__PURE__ */ new Set()), this._children;
  }
  /**
   * Retrieves the interrupted cause of the fiber, which will be `Cause.empty`
   * if the fiber has not been interrupted.
   *
   * **NOTE**: This method is safe to invoke on any fiber, but if not invoked
   * on this fiber, then values derived from the fiber's state (including the
   * log annotations and log level) may not be up-to-date.
   */
  getInterruptedCause() {
    return this.getFiberRef(currentInterruptedCause);
  }
  /**
   * Retrieves the whole set of fiber refs.
   */
  fiberRefs() {
    return this.ask((fiber) => fiber.getFiberRefs());
  }
  /**
   * Returns an effect that will contain information computed from the fiber
   * state and status while running on the fiber.
   *
   * This allows the outside world to interact safely with mutable fiber state
   * without locks or immutable data.
   */
  ask(f) {
    return suspend(() => {
      let deferred = deferredUnsafeMake(this._fiberId);
      return this.tell(stateful((fiber, status2) => {
        deferredUnsafeDone(deferred, sync(() => f(fiber, status2)));
      })), deferredAwait(deferred);
    });
  }
  /**
   * Adds a message to be processed by the fiber on the fiber.
   */
  tell(message2) {
    this._queue.push(message2), this._running || (this._running = !0, this.drainQueueLaterOnExecutor());
  }
  get await() {
    return async_((resume2) => {
      let cb = (exit4) => resume2(succeed(exit4));
      if (this._exitValue !== null) {
        cb(this._exitValue);
        return;
      }
      return this.tell(stateful((fiber, _) => {
        fiber._exitValue !== null ? cb(this._exitValue) : fiber.addObserver(cb);
      })), sync(() => this.tell(stateful((fiber, _) => {
        fiber.removeObserver(cb);
      })));
    }, this.id());
  }
  get inheritAll() {
    return withFiberRuntime((parentFiber, parentStatus) => {
      let parentFiberId = parentFiber.id(), parentFiberRefs = parentFiber.getFiberRefs(), parentRuntimeFlags = parentStatus.runtimeFlags, childFiberRefs = this.getFiberRefs(), updatedFiberRefs = joinAs(parentFiberRefs, parentFiberId, childFiberRefs);
      parentFiber.setFiberRefs(updatedFiberRefs);
      let updatedRuntimeFlags = parentFiber.getFiberRef(currentRuntimeFlags), patch10 = pipe(
        diff4(parentRuntimeFlags, updatedRuntimeFlags),
        // Do not inherit WindDown or Interruption!
        exclude2(Interruption),
        exclude2(WindDown)
      );
      return updateRuntimeFlags(patch10);
    });
  }
  /**
   * Tentatively observes the fiber, but returns immediately if it is not
   * already done.
   */
  get poll() {
    return sync(() => fromNullable(this._exitValue));
  }
  /**
   * Unsafely observes the fiber, but returns immediately if it is not
   * already done.
   */
  unsafePoll() {
    return this._exitValue;
  }
  /**
   * In the background, interrupts the fiber as if interrupted from the specified fiber.
   */
  interruptAsFork(fiberId2) {
    return sync(() => this.tell(interruptSignal(interrupt(fiberId2))));
  }
  /**
   * In the background, interrupts the fiber as if interrupted from the specified fiber.
   */
  unsafeInterruptAsFork(fiberId2) {
    this.tell(interruptSignal(interrupt(fiberId2)));
  }
  /**
   * Adds an observer to the list of observers.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  addObserver(observer2) {
    this._exitValue !== null ? observer2(this._exitValue) : this._observers.push(observer2);
  }
  /**
   * Removes the specified observer from the list of observers that will be
   * notified when the fiber exits.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  removeObserver(observer2) {
    this._observers = this._observers.filter((o) => o !== observer2);
  }
  /**
   * Retrieves all fiber refs of the fiber.
   *
   * **NOTE**: This method is safe to invoke on any fiber, but if not invoked
   * on this fiber, then values derived from the fiber's state (including the
   * log annotations and log level) may not be up-to-date.
   */
  getFiberRefs() {
    return this.setFiberRef(currentRuntimeFlags, this.currentRuntimeFlags), this._fiberRefs;
  }
  /**
   * Deletes the specified fiber ref.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  unsafeDeleteFiberRef(fiberRef) {
    this._fiberRefs = delete_(this._fiberRefs, fiberRef);
  }
  /**
   * Retrieves the state of the fiber ref, or else its initial value.
   *
   * **NOTE**: This method is safe to invoke on any fiber, but if not invoked
   * on this fiber, then values derived from the fiber's state (including the
   * log annotations and log level) may not be up-to-date.
   */
  getFiberRef(fiberRef) {
    return this._fiberRefs.locals.has(fiberRef) ? this._fiberRefs.locals.get(fiberRef)[0][1] : fiberRef.initial;
  }
  /**
   * Sets the fiber ref to the specified value.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  setFiberRef(fiberRef, value2) {
    this._fiberRefs = updateAs(this._fiberRefs, {
      fiberId: this._fiberId,
      fiberRef,
      value: value2
    }), this.refreshRefCache();
  }
  refreshRefCache() {
    this.currentDefaultServices = this.getFiberRef(currentServices), this.currentTracer = this.currentDefaultServices.unsafeMap.get(tracerTag.key), this.currentSupervisor = this.getFiberRef(currentSupervisor), this.currentScheduler = this.getFiberRef(currentScheduler), this.currentContext = this.getFiberRef(currentContext), this.currentSpan = this.currentContext.unsafeMap.get(spanTag.key);
  }
  /**
   * Wholesale replaces all fiber refs of this fiber.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  setFiberRefs(fiberRefs3) {
    this._fiberRefs = fiberRefs3, this.refreshRefCache();
  }
  /**
   * Adds a reference to the specified fiber inside the children set.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  addChild(child) {
    this.getChildren().add(child);
  }
  /**
   * Removes a reference to the specified fiber inside the children set.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  removeChild(child) {
    this.getChildren().delete(child);
  }
  /**
   * Transfers all children of this fiber that are currently running to the
   * specified fiber scope.
   *
   * **NOTE**: This method must be invoked by the fiber itself after it has
   * evaluated the effects but prior to exiting.
   */
  transferChildren(scope4) {
    let children2 = this._children;
    if (this._children = null, children2 !== null && children2.size > 0)
      for (let child of children2)
        child._exitValue === null && scope4.add(this.currentRuntimeFlags, child);
  }
  /**
   * On the current thread, executes all messages in the fiber's inbox. This
   * method may return before all work is done, in the event the fiber executes
   * an asynchronous operation.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  drainQueueOnCurrentThread() {
    let recurse = !0;
    for (; recurse; ) {
      let evaluationSignal = EvaluationSignalContinue, prev = globalThis[currentFiberURI];
      globalThis[currentFiberURI] = this;
      try {
        for (; evaluationSignal === EvaluationSignalContinue; )
          evaluationSignal = this._queue.length === 0 ? EvaluationSignalDone : this.evaluateMessageWhileSuspended(this._queue.splice(0, 1)[0]);
      } finally {
        this._running = !1, globalThis[currentFiberURI] = prev;
      }
      this._queue.length > 0 && !this._running ? (this._running = !0, evaluationSignal === EvaluationSignalYieldNow ? (this.drainQueueLaterOnExecutor(), recurse = !1) : recurse = !0) : recurse = !1;
    }
  }
  /**
   * Schedules the execution of all messages in the fiber's inbox.
   *
   * This method will return immediately after the scheduling
   * operation is completed, but potentially before such messages have been
   * executed.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  drainQueueLaterOnExecutor() {
    this.currentScheduler.scheduleTask(this.run, this.getFiberRef(currentSchedulingPriority), this);
  }
  /**
   * Drains the fiber's message queue while the fiber is actively running,
   * returning the next effect to execute, which may be the input effect if no
   * additional effect needs to be executed.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  drainQueueWhileRunning(runtimeFlags2, cur0) {
    let cur = cur0;
    for (; this._queue.length > 0; ) {
      let message2 = this._queue.splice(0, 1)[0];
      cur = drainQueueWhileRunningTable[message2._tag](this, runtimeFlags2, cur, message2);
    }
    return cur;
  }
  /**
   * Determines if the fiber is interrupted.
   *
   * **NOTE**: This method is safe to invoke on any fiber, but if not invoked
   * on this fiber, then values derived from the fiber's state (including the
   * log annotations and log level) may not be up-to-date.
   */
  isInterrupted() {
    return !isEmpty3(this.getFiberRef(currentInterruptedCause));
  }
  /**
   * Adds an interruptor to the set of interruptors that are interrupting this
   * fiber.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  addInterruptedCause(cause2) {
    let oldSC = this.getFiberRef(currentInterruptedCause);
    this.setFiberRef(currentInterruptedCause, sequential(oldSC, cause2));
  }
  /**
   * Processes a new incoming interrupt signal.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  processNewInterruptSignal(cause2) {
    this.addInterruptedCause(cause2), this.sendInterruptSignalToAllChildren();
  }
  /**
   * Interrupts all children of the current fiber, returning an effect that will
   * await the exit of the children. This method will return null if the fiber
   * has no children.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  sendInterruptSignalToAllChildren() {
    if (this._children === null || this._children.size === 0)
      return !1;
    let told = !1;
    for (let child of this._children)
      child.tell(interruptSignal(interrupt(this.id()))), told = !0;
    return told;
  }
  /**
   * Interrupts all children of the current fiber, returning an effect that will
   * await the exit of the children. This method will return null if the fiber
   * has no children.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  interruptAllChildren() {
    if (this.sendInterruptSignalToAllChildren()) {
      let it = this._children.values();
      this._children = null;
      let isDone6 = !1;
      return whileLoop({
        while: () => !isDone6,
        body: () => {
          let next3 = it.next();
          return next3.done ? sync(() => {
            isDone6 = !0;
          }) : asVoid(next3.value.await);
        },
        step: () => {
        }
      });
    }
    return null;
  }
  reportExitValue(exit4) {
    if (runtimeMetrics(this.currentRuntimeFlags)) {
      let tags = this.getFiberRef(currentMetricLabels), startTimeMillis = this.id().startTimeMillis, endTimeMillis = Date.now();
      switch (fiberLifetimes.unsafeUpdate(endTimeMillis - startTimeMillis, tags), fiberActive.unsafeUpdate(-1, tags), exit4._tag) {
        case OP_SUCCESS: {
          fiberSuccesses.unsafeUpdate(1, tags);
          break;
        }
        case OP_FAILURE: {
          fiberFailures.unsafeUpdate(1, tags);
          break;
        }
      }
    }
    if (exit4._tag === "Failure") {
      let level = this.getFiberRef(currentUnhandledErrorLogLevel);
      !isInterruptedOnly(exit4.cause) && level._tag === "Some" && this.log("Fiber terminated with an unhandled error", exit4.cause, level);
    }
  }
  setExitValue(exit4) {
    this._exitValue = exit4, this.reportExitValue(exit4);
    for (let i = this._observers.length - 1; i >= 0; i--)
      this._observers[i](exit4);
    this._observers = [];
  }
  getLoggers() {
    return this.getFiberRef(currentLoggers);
  }
  log(message2, cause2, overrideLogLevel) {
    let logLevel2 = isSome2(overrideLogLevel) ? overrideLogLevel.value : this.getFiberRef(currentLogLevel), minimumLogLevel = this.getFiberRef(currentMinimumLogLevel);
    if (greaterThan2(minimumLogLevel, logLevel2))
      return;
    let spans = this.getFiberRef(currentLogSpan), annotations2 = this.getFiberRef(currentLogAnnotations), loggers = this.getLoggers(), contextMap = this.getFiberRefs();
    if (size3(loggers) > 0) {
      let clockService = get5(this.getFiberRef(currentServices), clockTag), date2 = new Date(clockService.unsafeCurrentTimeMillis());
      withRedactableContext(contextMap, () => {
        for (let logger of loggers)
          logger.log({
            fiberId: this.id(),
            logLevel: logLevel2,
            message: message2,
            cause: cause2,
            context: contextMap,
            spans,
            annotations: annotations2,
            date: date2
          });
      });
    }
  }
  /**
   * Evaluates a single message on the current thread, while the fiber is
   * suspended. This method should only be called while evaluation of the
   * fiber's effect is suspended due to an asynchronous operation.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  evaluateMessageWhileSuspended(message2) {
    switch (message2._tag) {
      case OP_YIELD_NOW:
        return EvaluationSignalYieldNow;
      case OP_INTERRUPT_SIGNAL:
        return this.processNewInterruptSignal(message2.cause), this._asyncInterruptor !== null && (this._asyncInterruptor(exitFailCause(message2.cause)), this._asyncInterruptor = null), EvaluationSignalContinue;
      case OP_RESUME:
        return this._asyncInterruptor = null, this._asyncBlockingOn = null, this.evaluateEffect(message2.effect), EvaluationSignalContinue;
      case OP_STATEFUL:
        return message2.onFiber(this, this._exitValue !== null ? done3 : suspended2(this.currentRuntimeFlags, this._asyncBlockingOn)), EvaluationSignalContinue;
      default:
        return absurd(message2);
    }
  }
  /**
   * Evaluates an effect until completion, potentially asynchronously.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  evaluateEffect(effect0) {
    this.currentSupervisor.onResume(this);
    try {
      let effect3 = interruptible(this.currentRuntimeFlags) && this.isInterrupted() ? exitFailCause(this.getInterruptedCause()) : effect0;
      for (; effect3 !== null; ) {
        let eff = effect3, exit4 = this.runLoop(eff);
        if (exit4 === YieldedOp) {
          let op = yieldedOpChannel.currentOp;
          yieldedOpChannel.currentOp = null, op._op === OP_YIELD ? cooperativeYielding(this.currentRuntimeFlags) ? (this.tell(yieldNow3()), this.tell(resume(exitVoid)), effect3 = null) : effect3 = exitVoid : op._op === OP_ASYNC && (effect3 = null);
        } else {
          this.currentRuntimeFlags = pipe(this.currentRuntimeFlags, enable2(WindDown));
          let interruption2 = this.interruptAllChildren();
          interruption2 !== null ? effect3 = flatMap7(interruption2, () => exit4) : (this._queue.length === 0 ? this.setExitValue(exit4) : this.tell(resume(exit4)), effect3 = null);
        }
      }
    } finally {
      this.currentSupervisor.onSuspend(this);
    }
  }
  /**
   * Begins execution of the effect associated with this fiber on the current
   * thread. This can be called to "kick off" execution of a fiber after it has
   * been created, in hopes that the effect can be executed synchronously.
   *
   * This is not the normal way of starting a fiber, but it is useful when the
   * express goal of executing the fiber is to synchronously produce its exit.
   */
  start(effect3) {
    if (this._running)
      this.tell(resume(effect3));
    else {
      this._running = !0;
      let prev = globalThis[currentFiberURI];
      globalThis[currentFiberURI] = this;
      try {
        this.evaluateEffect(effect3);
      } finally {
        this._running = !1, globalThis[currentFiberURI] = prev, this._queue.length > 0 && this.drainQueueLaterOnExecutor();
      }
    }
  }
  /**
   * Begins execution of the effect associated with this fiber on in the
   * background, and on the correct thread pool. This can be called to "kick
   * off" execution of a fiber after it has been created, in hopes that the
   * effect can be executed synchronously.
   */
  startFork(effect3) {
    this.tell(resume(effect3));
  }
  /**
   * Takes the current runtime flags, patches them to return the new runtime
   * flags, and then makes any changes necessary to fiber state based on the
   * specified patch.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  patchRuntimeFlags(oldRuntimeFlags, patch10) {
    let newRuntimeFlags = patch4(oldRuntimeFlags, patch10);
    return globalThis[currentFiberURI] = this, this.currentRuntimeFlags = newRuntimeFlags, newRuntimeFlags;
  }
  /**
   * Initiates an asynchronous operation, by building a callback that will
   * resume execution, and then feeding that callback to the registration
   * function, handling error cases and repeated resumptions appropriately.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  initiateAsync(runtimeFlags2, asyncRegister) {
    let alreadyCalled = !1, callback = (effect3) => {
      alreadyCalled || (alreadyCalled = !0, this.tell(resume(effect3)));
    };
    interruptible(runtimeFlags2) && (this._asyncInterruptor = callback);
    try {
      asyncRegister(callback);
    } catch (e) {
      callback(failCause(die(e)));
    }
  }
  pushStack(cont) {
    this._stack.push(cont), cont._op === "OnStep" && this._steps.push({
      refs: this.getFiberRefs(),
      flags: this.currentRuntimeFlags
    });
  }
  popStack() {
    let item = this._stack.pop();
    if (item)
      return item._op === "OnStep" && this._steps.pop(), item;
  }
  getNextSuccessCont() {
    let frame = this.popStack();
    for (; frame; ) {
      if (frame._op !== OP_ON_FAILURE)
        return frame;
      frame = this.popStack();
    }
  }
  getNextFailCont() {
    let frame = this.popStack();
    for (; frame; ) {
      if (frame._op !== OP_ON_SUCCESS && frame._op !== OP_WHILE && frame._op !== OP_ITERATOR)
        return frame;
      frame = this.popStack();
    }
  }
  Tag(op) {
    return sync(() => unsafeGet4(this.currentContext, op));
  }
  Left(op) {
    return fail2(op.left);
  }
  None(_) {
    return fail2(new NoSuchElementException());
  }
  Right(op) {
    return exitSucceed(op.right);
  }
  Some(op) {
    return exitSucceed(op.value);
  }
  Micro(op) {
    return unsafeAsync((microResume) => {
      let resume2 = microResume, fiber = runFork(provideContext2(op, this.currentContext));
      return fiber.addObserver((exit4) => {
        if (exit4._tag === "Success")
          return resume2(exitSucceed(exit4.value));
        switch (exit4.cause._tag) {
          case "Interrupt":
            return resume2(exitFailCause(interrupt(none4)));
          case "Fail":
            return resume2(fail2(exit4.cause.error));
          case "Die":
            return resume2(die2(exit4.cause.defect));
        }
      }), unsafeAsync((abortResume) => {
        resume2 = (_) => {
          abortResume(void_);
        }, fiber.unsafeInterrupt();
      });
    });
  }
  [OP_SYNC](op) {
    let value2 = internalCall(() => op.effect_instruction_i0()), cont = this.getNextSuccessCont();
    return cont !== void 0 ? (cont._op in contOpSuccess || absurd(cont), contOpSuccess[cont._op](this, cont, value2)) : (yieldedOpChannel.currentOp = exitSucceed(value2), YieldedOp);
  }
  [OP_SUCCESS](op) {
    let oldCur = op, cont = this.getNextSuccessCont();
    return cont !== void 0 ? (cont._op in contOpSuccess || absurd(cont), contOpSuccess[cont._op](this, cont, oldCur.effect_instruction_i0)) : (yieldedOpChannel.currentOp = oldCur, YieldedOp);
  }
  [OP_FAILURE](op) {
    let cause2 = op.effect_instruction_i0, cont = this.getNextFailCont();
    if (cont !== void 0)
      switch (cont._op) {
        case OP_ON_FAILURE:
        case OP_ON_SUCCESS_AND_FAILURE:
          return interruptible(this.currentRuntimeFlags) && this.isInterrupted() ? exitFailCause(stripFailures(cause2)) : internalCall(() => cont.effect_instruction_i1(cause2));
        case "OnStep":
          return interruptible(this.currentRuntimeFlags) && this.isInterrupted() ? exitFailCause(stripFailures(cause2)) : exitSucceed(exitFailCause(cause2));
        case OP_REVERT_FLAGS:
          return this.patchRuntimeFlags(this.currentRuntimeFlags, cont.patch), interruptible(this.currentRuntimeFlags) && this.isInterrupted() ? exitFailCause(sequential(cause2, this.getInterruptedCause())) : exitFailCause(cause2);
        default:
          absurd(cont);
      }
    else
      return yieldedOpChannel.currentOp = exitFailCause(cause2), YieldedOp;
  }
  [OP_WITH_RUNTIME](op) {
    return internalCall(() => op.effect_instruction_i0(this, running2(this.currentRuntimeFlags)));
  }
  Blocked(op) {
    let refs = this.getFiberRefs(), flags = this.currentRuntimeFlags;
    if (this._steps.length > 0) {
      let frames = [], snap = this._steps[this._steps.length - 1], frame = this.popStack();
      for (; frame && frame._op !== "OnStep"; )
        frames.push(frame), frame = this.popStack();
      this.setFiberRefs(snap.refs), this.currentRuntimeFlags = snap.flags;
      let patchRefs = diff6(snap.refs, refs), patchFlags = diff4(snap.flags, flags);
      return exitSucceed(blocked(op.effect_instruction_i0, withFiberRuntime((newFiber) => {
        for (; frames.length > 0; )
          newFiber.pushStack(frames.pop());
        return newFiber.setFiberRefs(patch7(newFiber.id(), newFiber.getFiberRefs())(patchRefs)), newFiber.currentRuntimeFlags = patch4(patchFlags)(newFiber.currentRuntimeFlags), op.effect_instruction_i1;
      })));
    }
    return uninterruptibleMask((restore) => flatMap7(forkDaemon(runRequestBlock(op.effect_instruction_i0)), () => restore(op.effect_instruction_i1)));
  }
  RunBlocked(op) {
    return runBlockedRequests(op.effect_instruction_i0);
  }
  [OP_UPDATE_RUNTIME_FLAGS](op) {
    let updateFlags = op.effect_instruction_i0, oldRuntimeFlags = this.currentRuntimeFlags, newRuntimeFlags = patch4(oldRuntimeFlags, updateFlags);
    if (interruptible(newRuntimeFlags) && this.isInterrupted())
      return exitFailCause(this.getInterruptedCause());
    if (this.patchRuntimeFlags(this.currentRuntimeFlags, updateFlags), op.effect_instruction_i1) {
      let revertFlags = diff4(newRuntimeFlags, oldRuntimeFlags);
      return this.pushStack(new RevertFlags(revertFlags, op)), internalCall(() => op.effect_instruction_i1(oldRuntimeFlags));
    } else
      return exitVoid;
  }
  [OP_ON_SUCCESS](op) {
    return this.pushStack(op), op.effect_instruction_i0;
  }
  OnStep(op) {
    return this.pushStack(op), op.effect_instruction_i0;
  }
  [OP_ON_FAILURE](op) {
    return this.pushStack(op), op.effect_instruction_i0;
  }
  [OP_ON_SUCCESS_AND_FAILURE](op) {
    return this.pushStack(op), op.effect_instruction_i0;
  }
  [OP_ASYNC](op) {
    return this._asyncBlockingOn = op.effect_instruction_i1, this.initiateAsync(this.currentRuntimeFlags, op.effect_instruction_i0), yieldedOpChannel.currentOp = op, YieldedOp;
  }
  [OP_YIELD](op) {
    return this._isYielding = !1, yieldedOpChannel.currentOp = op, YieldedOp;
  }
  [OP_WHILE](op) {
    let check3 = op.effect_instruction_i0, body = op.effect_instruction_i1;
    return check3() ? (this.pushStack(op), body()) : exitVoid;
  }
  [OP_ITERATOR](op) {
    return contOpSuccess[OP_ITERATOR](this, op, void 0);
  }
  [OP_COMMIT](op) {
    return internalCall(() => op.commit());
  }
  /**
   * The main run-loop for evaluating effects.
   *
   * **NOTE**: This method must be invoked by the fiber itself.
   */
  runLoop(effect0) {
    let cur = effect0;
    for (this.currentOpCount = 0; ; ) {
      if ((this.currentRuntimeFlags & OpSupervision) !== 0 && this.currentSupervisor.onEffect(this, cur), this._queue.length > 0 && (cur = this.drainQueueWhileRunning(this.currentRuntimeFlags, cur)), !this._isYielding) {
        this.currentOpCount += 1;
        let shouldYield = this.currentScheduler.shouldYield(this);
        if (shouldYield !== !1) {
          this._isYielding = !0, this.currentOpCount = 0;
          let oldCur = cur;
          cur = flatMap7(yieldNow({
            priority: shouldYield
          }), () => oldCur);
        }
      }
      try {
        if (cur = this.currentTracer.context(() => {
          if (_version !== cur[EffectTypeId2]._V) {
            let level = this.getFiberRef(currentVersionMismatchErrorLogLevel);
            if (level._tag === "Some") {
              let effectVersion = cur[EffectTypeId2]._V;
              this.log(`Executing an Effect versioned ${effectVersion} with a Runtime of version ${getCurrentVersion()}, you may want to dedupe the effect dependencies, you can use the language service plugin to detect this at compile time: https://github.com/Effect-TS/language-service`, empty7, level);
            }
          }
          return this[cur._op](cur);
        }, this), cur === YieldedOp) {
          let op = yieldedOpChannel.currentOp;
          return op._op === OP_YIELD || op._op === OP_ASYNC ? YieldedOp : (yieldedOpChannel.currentOp = null, op._op === OP_SUCCESS || op._op === OP_FAILURE ? op : exitFailCause(die(op)));
        }
      } catch (e) {
        cur !== YieldedOp && !hasProperty(cur, "_op") || !(cur._op in this) ? cur = dieMessage(`Not a valid effect: ${toStringUnknown(cur)}`) : isInterruptedException(e) ? cur = exitFailCause(sequential(die(e), interrupt(none4))) : cur = die2(e);
      }
    }
  }
  run = () => {
    this.drainQueueOnCurrentThread();
  };
}, currentMinimumLogLevel = /* @__PURE__ */ globalValue("effect/FiberRef/currentMinimumLogLevel", () => fiberRefUnsafeMake(fromLiteral("Info"))), loggerWithConsoleLog = (self) => makeLogger((opts) => {
  let services = getOrDefault2(opts.context, currentServices);
  get5(services, consoleTag).unsafe.log(self.log(opts));
});
var defaultLogger = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/Logger/defaultLogger"), () => loggerWithConsoleLog(stringLogger));
var tracerLogger = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/Logger/tracerLogger"), () => makeLogger(({
  annotations: annotations2,
  cause: cause2,
  context: context5,
  fiberId: fiberId2,
  logLevel: logLevel2,
  message: message2
}) => {
  let span2 = filterDisablePropagation(getOption2(getOrDefault(context5, currentContext), spanTag));
  if (span2._tag === "None" || span2.value._tag === "ExternalSpan")
    return;
  let clockService = unsafeGet4(getOrDefault(context5, currentServices), clockTag), attributes = {};
  for (let [key, value2] of annotations2)
    attributes[key] = value2;
  attributes["effect.fiberId"] = threadName2(fiberId2), attributes["effect.logLevel"] = logLevel2.label, cause2 !== null && cause2._tag !== "Empty" && (attributes["effect.cause"] = pretty(cause2, {
    renderErrorCause: !0
  })), span2.value.event(toStringUnknown(Array.isArray(message2) && message2.length === 1 ? message2[0] : message2), clockService.unsafeCurrentTimeNanos(), attributes);
}));
var currentLoggers = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/FiberRef/currentLoggers"), () => fiberRefUnsafeMakeHashSet(make7(defaultLogger, tracerLogger)));
var acquireRelease = /* @__PURE__ */ dual((args2) => isEffect(args2[0]), (acquire, release2) => uninterruptible(tap(acquire, (a) => addFinalizer((exit4) => release2(a, exit4)))));
var addFinalizer = (finalizer2) => withFiberRuntime((runtime4) => {
  let acquireRefs = runtime4.getFiberRefs(), acquireFlags = disable2(runtime4.currentRuntimeFlags, Interruption);
  return flatMap7(scope, (scope4) => scopeAddFinalizerExit(scope4, (exit4) => withFiberRuntime((runtimeFinalizer) => {
    let preRefs = runtimeFinalizer.getFiberRefs(), preFlags = runtimeFinalizer.currentRuntimeFlags, interruptedCause = runtimeFinalizer.getFiberRef(currentInterruptedCause), patchRefs = diff6(preRefs, acquireRefs), patchFlags = diff4(preFlags, acquireFlags), inverseRefs = diff6(acquireRefs, preRefs);
    return runtimeFinalizer.setFiberRefs(patch7(patchRefs, runtimeFinalizer.id(), acquireRefs)), runtimeFinalizer.setFiberRef(currentInterruptedCause, interruptedCause), ensuring(withRuntimeFlags(finalizer2(exit4), patchFlags), sync(() => {
      runtimeFinalizer.setFiberRefs(patch7(inverseRefs, runtimeFinalizer.id(), runtimeFinalizer.getFiberRefs()));
    }));
  })));
});
var allResolveInput = (input2) => {
  if (Array.isArray(input2) || isIterable(input2))
    return [input2, none2()];
  let keys7 = Object.keys(input2), size13 = keys7.length;
  return [keys7.map((k) => input2[k]), some2((values3) => {
    let res = {};
    for (let i = 0; i < size13; i++)
      res[keys7[i]] = values3[i];
    return res;
  })];
}, allValidate = (effects, reconcile, options) => {
  let eitherEffects = [];
  for (let effect3 of effects)
    eitherEffects.push(either2(effect3));
  return flatMap7(forEach6(eitherEffects, identity, {
    concurrency: options?.concurrency,
    batching: options?.batching,
    concurrentFinalizers: options?.concurrentFinalizers
  }), (eithers) => {
    let none10 = none2(), size13 = eithers.length, errors = new Array(size13), successes = new Array(size13), errored = !1;
    for (let i = 0; i < size13; i++) {
      let either6 = eithers[i];
      either6._tag === "Left" ? (errors[i] = some2(either6.left), errored = !0) : (successes[i] = either6.right, errors[i] = none10);
    }
    return errored ? reconcile._tag === "Some" ? fail2(reconcile.value(errors)) : fail2(errors) : options?.discard ? void_ : reconcile._tag === "Some" ? succeed(reconcile.value(successes)) : succeed(successes);
  });
}, allEither = (effects, reconcile, options) => {
  let eitherEffects = [];
  for (let effect3 of effects)
    eitherEffects.push(either2(effect3));
  return options?.discard ? forEach6(eitherEffects, identity, {
    concurrency: options?.concurrency,
    batching: options?.batching,
    discard: !0,
    concurrentFinalizers: options?.concurrentFinalizers
  }) : map10(forEach6(eitherEffects, identity, {
    concurrency: options?.concurrency,
    batching: options?.batching,
    concurrentFinalizers: options?.concurrentFinalizers
  }), (eithers) => reconcile._tag === "Some" ? reconcile.value(eithers) : eithers);
}, all3 = (arg, options) => {
  let [effects, reconcile] = allResolveInput(arg);
  return options?.mode === "validate" ? allValidate(effects, reconcile, options) : options?.mode === "either" ? allEither(effects, reconcile, options) : options?.discard !== !0 && reconcile._tag === "Some" ? map10(forEach6(effects, identity, options), reconcile.value) : forEach6(effects, identity, options);
};
var forEach6 = /* @__PURE__ */ dual((args2) => isIterable(args2[0]), (self, f, options) => withFiberRuntime((r) => {
  let isRequestBatchingEnabled = options?.batching === !0 || options?.batching === "inherit" && r.getFiberRef(currentRequestBatching);
  return options?.discard ? match7(options.concurrency, () => finalizersMaskInternal(sequential3, options?.concurrentFinalizers)((restore) => isRequestBatchingEnabled ? forEachConcurrentDiscard(self, (a, i) => restore(f(a, i)), !0, !1, 1) : forEachSequentialDiscard(self, (a, i) => restore(f(a, i)))), () => finalizersMaskInternal(parallel3, options?.concurrentFinalizers)((restore) => forEachConcurrentDiscard(self, (a, i) => restore(f(a, i)), isRequestBatchingEnabled, !1)), (n) => finalizersMaskInternal(parallelN2(n), options?.concurrentFinalizers)((restore) => forEachConcurrentDiscard(self, (a, i) => restore(f(a, i)), isRequestBatchingEnabled, !1, n))) : match7(options?.concurrency, () => finalizersMaskInternal(sequential3, options?.concurrentFinalizers)((restore) => isRequestBatchingEnabled ? forEachParN(self, 1, (a, i) => restore(f(a, i)), !0) : forEachSequential(self, (a, i) => restore(f(a, i)))), () => finalizersMaskInternal(parallel3, options?.concurrentFinalizers)((restore) => forEachParUnbounded(self, (a, i) => restore(f(a, i)), isRequestBatchingEnabled)), (n) => finalizersMaskInternal(parallelN2(n), options?.concurrentFinalizers)((restore) => forEachParN(self, n, (a, i) => restore(f(a, i)), isRequestBatchingEnabled)));
})), forEachParUnbounded = (self, f, batching) => suspend(() => {
  let as8 = fromIterable(self), array5 = new Array(as8.length);
  return zipRight(forEachConcurrentDiscard(as8, (a, i) => flatMap7(f(a, i), (b) => sync(() => array5[i] = b)), batching, !1), succeed(array5));
}), forEachConcurrentDiscard = (self, f, batching, processAll, n) => uninterruptibleMask((restore) => transplant((graft) => withFiberRuntime((parent) => {
  let todos = Array.from(self).reverse(), target = todos.length;
  if (target === 0)
    return void_;
  let counter7 = 0, interrupted3 = !1, fibersCount = n ? Math.min(todos.length, n) : todos.length, fibers = /* @__PURE__ */ new Set(), results = new Array(), interruptAll2 = () => fibers.forEach((fiber) => {
    fiber.currentScheduler.scheduleTask(() => {
      fiber.unsafeInterruptAsFork(parent.id());
    }, 0, fiber);
  }), startOrder = new Array(), joinOrder = new Array(), residual = new Array(), collectExits = () => {
    let exits = results.filter(({
      exit: exit4
    }) => exit4._tag === "Failure").sort((a, b) => a.index < b.index ? -1 : a.index === b.index ? 0 : 1).map(({
      exit: exit4
    }) => exit4);
    return exits.length === 0 && exits.push(exitVoid), exits;
  }, runFiber = (eff, interruptImmediately = !1) => {
    let runnable = uninterruptible(graft(eff)), fiber = unsafeForkUnstarted(runnable, parent, parent.currentRuntimeFlags, globalScope);
    return parent.currentScheduler.scheduleTask(() => {
      interruptImmediately && fiber.unsafeInterruptAsFork(parent.id()), fiber.resume(runnable);
    }, 0, fiber), fiber;
  }, onInterruptSignal = () => {
    processAll || (target -= todos.length, todos = []), interrupted3 = !0, interruptAll2();
  }, stepOrExit = batching ? step2 : exit, processingFiber = runFiber(async_((resume2) => {
    let pushResult = (res, index) => {
      res._op === "Blocked" ? residual.push(res) : (results.push({
        index,
        exit: res
      }), res._op === "Failure" && !interrupted3 && onInterruptSignal());
    }, next3 = () => {
      if (todos.length > 0) {
        let a = todos.pop(), index = counter7++, returnNextElement = () => {
          let a2 = todos.pop();
          return index = counter7++, flatMap7(yieldNow(), () => flatMap7(stepOrExit(restore(f(a2, index))), onRes));
        }, onRes = (res) => todos.length > 0 && (pushResult(res, index), todos.length > 0) ? returnNextElement() : succeed(res), todo = flatMap7(stepOrExit(restore(f(a, index))), onRes), fiber = runFiber(todo);
        startOrder.push(fiber), fibers.add(fiber), interrupted3 && fiber.currentScheduler.scheduleTask(() => {
          fiber.unsafeInterruptAsFork(parent.id());
        }, 0, fiber), fiber.addObserver((wrapped) => {
          let exit4;
          if (wrapped._op === "Failure" ? exit4 = wrapped : exit4 = wrapped.effect_instruction_i0, joinOrder.push(fiber), fibers.delete(fiber), pushResult(exit4, index), results.length === target)
            resume2(succeed(getOrElse(exitCollectAll(collectExits(), {
              parallel: !0
            }), () => exitVoid)));
          else if (residual.length + results.length === target) {
            let exits = collectExits(), requests = residual.map((blocked2) => blocked2.effect_instruction_i0).reduce(par);
            resume2(succeed(blocked(requests, forEachConcurrentDiscard([getOrElse(exitCollectAll(exits, {
              parallel: !0
            }), () => exitVoid), ...residual.map((blocked2) => blocked2.effect_instruction_i1)], (i) => i, batching, !0, n))));
          } else
            next3();
        });
      }
    };
    for (let i = 0; i < fibersCount; i++)
      next3();
  }));
  return asVoid(onExit(flatten3(restore(join2(processingFiber))), exitMatch({
    onFailure: (cause2) => {
      onInterruptSignal();
      let target2 = residual.length + 1, concurrency = Math.min(typeof n == "number" ? n : residual.length, residual.length), toPop = Array.from(residual);
      return async_((cb) => {
        let exits = [], count3 = 0, index = 0, check3 = (index2, hitNext) => (exit4) => {
          exits[index2] = exit4, count3++, count3 === target2 && cb(exitSucceed(exitFailCause(cause2))), toPop.length > 0 && hitNext && next3();
        }, next3 = () => {
          runFiber(toPop.pop(), !0).addObserver(check3(index, !0)), index++;
        };
        processingFiber.addObserver(check3(index, !1)), index++;
        for (let i = 0; i < concurrency; i++)
          next3();
      });
    },
    onSuccess: () => forEachSequential(joinOrder, (f2) => f2.inheritAll)
  })));
}))), forEachParN = (self, n, f, batching) => suspend(() => {
  let as8 = fromIterable(self), array5 = new Array(as8.length);
  return zipRight(forEachConcurrentDiscard(as8, (a, i) => map10(f(a, i), (b) => array5[i] = b), batching, !1, n), succeed(array5));
});
var forkDaemon = (self) => forkWithScopeOverride(self, globalScope);
var unsafeFork2 = (effect3, parentFiber, parentRuntimeFlags, overrideScope = null) => {
  let childFiber = unsafeMakeChildFiber(effect3, parentFiber, parentRuntimeFlags, overrideScope);
  return childFiber.resume(effect3), childFiber;
}, unsafeForkUnstarted = (effect3, parentFiber, parentRuntimeFlags, overrideScope = null) => unsafeMakeChildFiber(effect3, parentFiber, parentRuntimeFlags, overrideScope), unsafeMakeChildFiber = (effect3, parentFiber, parentRuntimeFlags, overrideScope = null) => {
  let childId = unsafeMake3(), parentFiberRefs = parentFiber.getFiberRefs(), childFiberRefs = forkAs(parentFiberRefs, childId), childFiber = new FiberRuntime(childId, childFiberRefs, parentRuntimeFlags), childContext = getOrDefault(childFiberRefs, currentContext), supervisor = childFiber.currentSupervisor;
  return supervisor.onStart(childContext, effect3, some2(parentFiber), childFiber), childFiber.addObserver((exit4) => supervisor.onEnd(exit4, childFiber)), (overrideScope !== null ? overrideScope : pipe(parentFiber.getFiberRef(currentForkScopeOverride), getOrElse(() => parentFiber.scope()))).add(parentRuntimeFlags, childFiber), childFiber;
}, forkWithScopeOverride = (self, scopeOverride) => withFiberRuntime((parentFiber, parentStatus) => succeed(unsafeFork2(self, parentFiber, parentStatus.runtimeFlags, scopeOverride)));
var parallelFinalizers = (self) => contextWithEffect((context5) => match2(getOption2(context5, scopeTag), {
  onNone: () => self,
  onSome: (scope4) => {
    switch (scope4.strategy._tag) {
      case "Parallel":
        return self;
      case "Sequential":
      case "ParallelN":
        return flatMap7(scopeFork(scope4, parallel3), (inner) => scopeExtend(self, inner));
    }
  }
})), parallelNFinalizers = (parallelism) => (self) => contextWithEffect((context5) => match2(getOption2(context5, scopeTag), {
  onNone: () => self,
  onSome: (scope4) => scope4.strategy._tag === "ParallelN" && scope4.strategy.parallelism === parallelism ? self : flatMap7(scopeFork(scope4, parallelN2(parallelism)), (inner) => scopeExtend(self, inner))
}));
var finalizersMaskInternal = (strategy, concurrentFinalizers) => (self) => contextWithEffect((context5) => match2(getOption2(context5, scopeTag), {
  onNone: () => self(identity),
  onSome: (scope4) => {
    if (concurrentFinalizers === !0) {
      let patch10 = strategy._tag === "Parallel" ? parallelFinalizers : strategy._tag === "Sequential" ? sequentialFinalizers : parallelNFinalizers(strategy.parallelism);
      switch (scope4.strategy._tag) {
        case "Parallel":
          return patch10(self(parallelFinalizers));
        case "Sequential":
          return patch10(self(sequentialFinalizers));
        case "ParallelN":
          return patch10(self(parallelNFinalizers(scope4.strategy.parallelism)));
      }
    } else
      return self(identity);
  }
})), scopeWith = (f) => flatMap7(scopeTag, f), scopedWith = (f) => flatMap7(scopeMake(), (scope4) => onExit(f(scope4), (exit4) => scope4.close(exit4)));
var sequentialFinalizers = (self) => contextWithEffect((context5) => match2(getOption2(context5, scopeTag), {
  onNone: () => self,
  onSome: (scope4) => {
    switch (scope4.strategy._tag) {
      case "Sequential":
        return self;
      case "Parallel":
      case "ParallelN":
        return flatMap7(scopeFork(scope4, sequential3), (inner) => scopeExtend(self, inner));
    }
  }
}));
var zipOptions = /* @__PURE__ */ dual((args2) => isEffect(args2[1]), (self, that, options) => zipWithOptions(self, that, (a, b) => [a, b], options)), zipLeftOptions = /* @__PURE__ */ dual((args2) => isEffect(args2[1]), (self, that, options) => options?.concurrent !== !0 && (options?.batching === void 0 || options.batching === !1) ? zipLeft(self, that) : zipWithOptions(self, that, (a, _) => a, options)), zipRightOptions = /* @__PURE__ */ dual((args2) => isEffect(args2[1]), (self, that, options) => options?.concurrent !== !0 && (options?.batching === void 0 || options.batching === !1) ? zipRight(self, that) : zipWithOptions(self, that, (_, b) => b, options)), zipWithOptions = /* @__PURE__ */ dual((args2) => isEffect(args2[1]), (self, that, f, options) => map10(all3([self, that], {
  concurrency: options?.concurrent ? 2 : 1,
  batching: options?.batching,
  concurrentFinalizers: options?.concurrentFinalizers
}), ([a, a2]) => f(a, a2)));
var scopeTag = /* @__PURE__ */ GenericTag("effect/Scope"), scope = scopeTag, scopeUnsafeAddFinalizer = (scope4, fin) => {
  scope4.state._tag === "Open" && scope4.state.finalizers.set({}, fin);
}, ScopeImplProto = {
  [ScopeTypeId]: ScopeTypeId,
  [CloseableScopeTypeId]: CloseableScopeTypeId,
  pipe() {
    return pipeArguments(this, arguments);
  },
  fork(strategy) {
    return sync(() => {
      let newScope = scopeUnsafeMake(strategy);
      if (this.state._tag === "Closed")
        return newScope.state = this.state, newScope;
      let key = {}, fin = (exit4) => newScope.close(exit4);
      return this.state.finalizers.set(key, fin), scopeUnsafeAddFinalizer(newScope, (_) => sync(() => {
        this.state._tag === "Open" && this.state.finalizers.delete(key);
      })), newScope;
    });
  },
  close(exit4) {
    return suspend(() => {
      if (this.state._tag === "Closed")
        return void_;
      let finalizers = Array.from(this.state.finalizers.values()).reverse();
      return this.state = {
        _tag: "Closed",
        exit: exit4
      }, finalizers.length === 0 ? void_ : isSequential(this.strategy) ? pipe(forEachSequential(finalizers, (fin) => exit(fin(exit4))), flatMap7((results) => pipe(exitCollectAll(results), map2(exitAsVoid), getOrElse(() => exitVoid)))) : isParallel(this.strategy) ? pipe(forEachParUnbounded(finalizers, (fin) => exit(fin(exit4)), !1), flatMap7((results) => pipe(exitCollectAll(results, {
        parallel: !0
      }), map2(exitAsVoid), getOrElse(() => exitVoid)))) : pipe(forEachParN(finalizers, this.strategy.parallelism, (fin) => exit(fin(exit4)), !1), flatMap7((results) => pipe(exitCollectAll(results, {
        parallel: !0
      }), map2(exitAsVoid), getOrElse(() => exitVoid))));
    });
  },
  addFinalizer(fin) {
    return suspend(() => this.state._tag === "Closed" ? fin(this.state.exit) : (this.state.finalizers.set({}, fin), void_));
  }
}, scopeUnsafeMake = (strategy = sequential2) => {
  let scope4 = Object.create(ScopeImplProto);
  return scope4.strategy = strategy, scope4.state = {
    _tag: "Open",
    finalizers: /* @__PURE__ */ new Map()
  }, scope4;
}, scopeMake = (strategy = sequential2) => sync(() => scopeUnsafeMake(strategy)), scopeExtend = /* @__PURE__ */ dual(2, (effect3, scope4) => mapInputContext(
  effect3,
  // @ts-expect-error
  merge3(make9(scopeTag, scope4))
));
var fiberRefUnsafeMakeSupervisor = (initial2) => fiberRefUnsafeMakePatch(initial2, {
  differ: differ2,
  fork: empty23
});
var currentRuntimeFlags = /* @__PURE__ */ fiberRefUnsafeMakeRuntimeFlags(none5), currentSupervisor = /* @__PURE__ */ fiberRefUnsafeMakeSupervisor(none7);
var raceWith = /* @__PURE__ */ dual(3, (self, other, options) => raceFibersWith(self, other, {
  onSelfWin: (winner, loser) => flatMap7(winner.await, (exit4) => {
    switch (exit4._tag) {
      case OP_SUCCESS:
        return flatMap7(winner.inheritAll, () => options.onSelfDone(exit4, loser));
      case OP_FAILURE:
        return options.onSelfDone(exit4, loser);
    }
  }),
  onOtherWin: (winner, loser) => flatMap7(winner.await, (exit4) => {
    switch (exit4._tag) {
      case OP_SUCCESS:
        return flatMap7(winner.inheritAll, () => options.onOtherDone(exit4, loser));
      case OP_FAILURE:
        return options.onOtherDone(exit4, loser);
    }
  })
}));
var race = /* @__PURE__ */ dual(2, (self, that) => fiberIdWith((parentFiberId) => raceWith(self, that, {
  onSelfDone: (exit4, right3) => exitMatchEffect(exit4, {
    onFailure: (cause2) => pipe(join2(right3), mapErrorCause((cause22) => parallel(cause2, cause22))),
    onSuccess: (value2) => pipe(right3, interruptAsFiber(parentFiberId), as(value2))
  }),
  onOtherDone: (exit4, left3) => exitMatchEffect(exit4, {
    onFailure: (cause2) => pipe(join2(left3), mapErrorCause((cause22) => parallel(cause22, cause2))),
    onSuccess: (value2) => pipe(left3, interruptAsFiber(parentFiberId), as(value2))
  })
}))), raceFibersWith = /* @__PURE__ */ dual(3, (self, other, options) => withFiberRuntime((parentFiber, parentStatus) => {
  let parentRuntimeFlags = parentStatus.runtimeFlags, raceIndicator = make11(!0), leftFiber = unsafeMakeChildFiber(self, parentFiber, parentRuntimeFlags, options.selfScope), rightFiber = unsafeMakeChildFiber(other, parentFiber, parentRuntimeFlags, options.otherScope);
  return async_((cb) => {
    leftFiber.addObserver(() => completeRace(leftFiber, rightFiber, options.onSelfWin, raceIndicator, cb)), rightFiber.addObserver(() => completeRace(rightFiber, leftFiber, options.onOtherWin, raceIndicator, cb)), leftFiber.startFork(self), rightFiber.startFork(other);
  }, combine3(leftFiber.id(), rightFiber.id()));
})), completeRace = (winner, loser, cont, ab, cb) => {
  compareAndSet(!0, !1)(ab) && cb(cont(winner, loser));
}, ensuring = /* @__PURE__ */ dual(2, (self, finalizer2) => uninterruptibleMask((restore) => matchCauseEffect(restore(self), {
  onFailure: (cause1) => matchCauseEffect(finalizer2, {
    onFailure: (cause2) => failCause(sequential(cause1, cause2)),
    onSuccess: () => failCause(cause1)
  }),
  onSuccess: (a) => as(finalizer2, a)
}))), invokeWithInterrupt = (self, entries2, onInterrupt3) => fiberIdWith((id2) => ensuring(flatMap7(forkDaemon(interruptible2(self)), (processing) => async_((cb) => {
  let counts = entries2.map((_) => _.listeners.count), checkDone = () => {
    counts.every((count3) => count3 === 0) && entries2.every((_) => _.result.state.current._tag === "Pending" ? !0 : !!(_.result.state.current._tag === "Done" && exitIsExit(_.result.state.current.effect) && _.result.state.current.effect._tag === "Failure" && isInterrupted(_.result.state.current.effect.cause))) && (cleanup.forEach((f) => f()), onInterrupt3?.(), cb(interruptFiber(processing)));
  };
  processing.addObserver((exit4) => {
    cleanup.forEach((f) => f()), cb(exit4);
  });
  let cleanup = entries2.map((r, i) => {
    let observer2 = (count3) => {
      counts[i] = count3, checkDone();
    };
    return r.listeners.addObserver(observer2), () => r.listeners.removeObserver(observer2);
  });
  return checkDone(), sync(() => {
    cleanup.forEach((f) => f());
  });
})), suspend(() => {
  let residual = entries2.flatMap((entry) => entry.state.completed ? [] : [entry]);
  return forEachSequentialDiscard(residual, (entry) => complete(entry.request, exitInterrupt(id2)));
})));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Cause.js
var fail4 = fail, die4 = die, interrupt4 = interrupt;
var sequential4 = sequential;
var isFailType2 = isFailType, isDieType2 = isDieType;
var isInterrupted2 = isInterrupted, isInterruptedOnly2 = isInterruptedOnly;
var interruptors2 = interruptors, failureOption2 = failureOption, failureOrCause2 = failureOrCause;
var map13 = map8;
var squash = causeSquash;
var pretty2 = pretty;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/schedule/interval.js
var IntervalSymbolKey = "effect/ScheduleInterval", IntervalTypeId = /* @__PURE__ */ Symbol.for(IntervalSymbolKey), empty25 = {
  [IntervalTypeId]: IntervalTypeId,
  startMillis: 0,
  endMillis: 0
}, make31 = (startMillis, endMillis) => startMillis > endMillis ? empty25 : {
  [IntervalTypeId]: IntervalTypeId,
  startMillis,
  endMillis
}, lessThan2 = /* @__PURE__ */ dual(2, (self, that) => min3(self, that) === self), min3 = /* @__PURE__ */ dual(2, (self, that) => self.endMillis <= that.startMillis ? self : that.endMillis <= self.startMillis ? that : self.startMillis < that.startMillis ? self : that.startMillis < self.startMillis ? that : self.endMillis <= that.endMillis ? self : that);
var isEmpty6 = (self) => self.startMillis >= self.endMillis;
var intersect = /* @__PURE__ */ dual(2, (self, that) => {
  let start3 = Math.max(self.startMillis, that.startMillis), end5 = Math.min(self.endMillis, that.endMillis);
  return make31(start3, end5);
}), size8 = (self) => millis(self.endMillis - self.startMillis);
var after = (startMilliseconds) => make31(startMilliseconds, Number.POSITIVE_INFINITY);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/ScheduleInterval.js
var make32 = make31, empty26 = empty25, lessThan3 = lessThan2;
var isEmpty7 = isEmpty6;
var intersect2 = intersect, size9 = size8;
var after2 = after;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/schedule/intervals.js
var IntervalsSymbolKey = "effect/ScheduleIntervals", IntervalsTypeId = /* @__PURE__ */ Symbol.for(IntervalsSymbolKey), make33 = (intervals) => ({
  [IntervalsTypeId]: IntervalsTypeId,
  intervals
});
var intersect3 = /* @__PURE__ */ dual(2, (self, that) => intersectLoop(self.intervals, that.intervals, empty3())), intersectLoop = (_left, _right, _acc) => {
  let left3 = _left, right3 = _right, acc = _acc;
  for (; isNonEmpty(left3) && isNonEmpty(right3); ) {
    let interval = pipe(headNonEmpty2(left3), intersect2(headNonEmpty2(right3))), intervals = isEmpty7(interval) ? acc : pipe(acc, prepend2(interval));
    pipe(headNonEmpty2(left3), lessThan3(headNonEmpty2(right3))) ? left3 = tailNonEmpty2(left3) : right3 = tailNonEmpty2(right3), acc = intervals;
  }
  return make33(reverse2(acc));
}, start = (self) => pipe(self.intervals, head2, getOrElse(() => empty26)).startMillis, end = (self) => pipe(self.intervals, head2, getOrElse(() => empty26)).endMillis, lessThan4 = /* @__PURE__ */ dual(2, (self, that) => start(self) < start(that)), isNonEmpty3 = (self) => isNonEmpty(self.intervals);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/ScheduleIntervals.js
var make34 = make33;
var intersect4 = intersect3, start2 = start, end2 = end, lessThan5 = lessThan4, isNonEmpty4 = isNonEmpty3;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/schedule/decision.js
var OP_CONTINUE = "Continue", OP_DONE2 = "Done", _continue = (intervals) => ({
  _tag: OP_CONTINUE,
  intervals
}), continueWith = (interval) => ({
  _tag: OP_CONTINUE,
  intervals: make34(of2(interval))
}), done4 = {
  _tag: OP_DONE2
}, isContinue = (self) => self._tag === OP_CONTINUE, isDone3 = (self) => self._tag === OP_DONE2;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/ScheduleDecision.js
var _continue2 = _continue;
var continueWith2 = continueWith, done5 = done4, isContinue2 = isContinue, isDone4 = isDone3;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Scope.js
var addFinalizer2 = scopeAddFinalizer, addFinalizerExit = scopeAddFinalizerExit, close = scopeClose, extend2 = scopeExtend, fork = scopeFork;
var make35 = scopeMake;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/effect/circular.js
var Semaphore = class {
  permits;
  waiters = /* @__PURE__ */ new Set();
  taken = 0;
  constructor(permits) {
    this.permits = permits;
  }
  get free() {
    return this.permits - this.taken;
  }
  take = (n) => asyncInterrupt((resume2) => {
    if (this.free < n) {
      let observer2 = () => {
        this.free < n || (this.waiters.delete(observer2), resume2(suspend(() => this.free < n ? this.take(n) : (this.taken += n, succeed(n)))));
      };
      return this.waiters.add(observer2), sync(() => {
        this.waiters.delete(observer2);
      });
    }
    resume2(suspend(() => this.free < n ? this.take(n) : (this.taken += n, succeed(n))));
  });
  updateTakenUnsafe(fiber, f) {
    return this.taken = f(this.taken), this.waiters.size > 0 && fiber.getFiberRef(currentScheduler).scheduleTask(() => {
      let iter = this.waiters.values(), item = iter.next();
      for (; item.done === !1 && this.free > 0; )
        item.value(), item = iter.next();
    }, fiber.getFiberRef(currentSchedulingPriority), fiber), succeed(this.free);
  }
  updateTaken(f) {
    return withFiberRuntime((fiber) => this.updateTakenUnsafe(fiber, f));
  }
  resize = (permits) => asVoid(withFiberRuntime((fiber) => (this.permits = permits, this.free < 0 ? void_ : this.updateTakenUnsafe(fiber, (taken2) => taken2))));
  release = (n) => this.updateTaken((taken2) => taken2 - n);
  releaseAll = /* @__PURE__ */ this.updateTaken((_) => 0);
  withPermits = (n) => (self) => uninterruptibleMask((restore) => flatMap7(restore(this.take(n)), (permits) => ensuring(restore(self), this.release(permits))));
  withPermitsIfAvailable = (n) => (self) => uninterruptibleMask((restore) => suspend(() => this.free < n ? succeedNone : (this.taken += n, ensuring(restore(asSome(self)), this.release(n)))));
}, unsafeMakeSemaphore = (permits) => new Semaphore(permits), makeSemaphore = (permits) => sync(() => unsafeMakeSemaphore(permits));
var forkIn = /* @__PURE__ */ dual(2, (self, scope4) => withFiberRuntime((parent, parentStatus) => {
  let scopeImpl = scope4, fiber = unsafeFork2(self, parent, parentStatus.runtimeFlags, globalScope);
  if (scopeImpl.state._tag === "Open") {
    let finalizer2 = () => fiberIdWith((fiberId2) => equals(fiberId2, fiber.id()) ? void_ : asVoid(interruptFiber(fiber))), key = {};
    scopeImpl.state.finalizers.set(key, finalizer2), fiber.addObserver(() => {
      scopeImpl.state._tag !== "Closed" && scopeImpl.state.finalizers.delete(key);
    });
  } else
    fiber.unsafeInterruptAsFork(parent.id());
  return succeed(fiber);
}));
var memoKeySymbol = /* @__PURE__ */ Symbol.for("effect/Effect/memoizeFunction.key"), Key = class {
  a;
  eq;
  [memoKeySymbol] = memoKeySymbol;
  constructor(a, eq) {
    this.a = a, this.eq = eq;
  }
  [symbol2](that) {
    return hasProperty(that, memoKeySymbol) ? this.eq ? this.eq(this.a, that.a) : equals(this.a, that.a) : !1;
  }
  [symbol]() {
    return this.eq ? 0 : cached(this, hash(this.a));
  }
};
var timeoutOption = /* @__PURE__ */ dual(2, (self, duration3) => timeoutTo(self, {
  duration: duration3,
  onSuccess: some2,
  onTimeout: none2
})), timeoutTo = /* @__PURE__ */ dual(2, (self, {
  duration: duration3,
  onSuccess,
  onTimeout
}) => fiberIdWith((parentFiberId) => uninterruptibleMask((restore) => raceFibersWith(exit(restore(self)), interruptible2(sleep3(duration3)), {
  onSelfWin: (winner, loser) => flatMap7(winner.await, (exit4) => {
    let selfExit = exitFlatten(exit4);
    return selfExit._tag === "Success" ? flatMap7(winner.inheritAll, () => as(interruptAsFiber(loser, parentFiberId), onSuccess(selfExit.value))) : flatMap7(interruptAsFiber(loser, parentFiberId), () => exitFailCause(selfExit.cause));
  }),
  onOtherWin: (winner, loser) => flatMap7(winner.await, (exit4) => exit4._tag === "Success" ? flatMap7(winner.inheritAll, () => as(interruptAsFiber(loser, parentFiberId), onTimeout())) : flatMap7(interruptAsFiber(loser, parentFiberId), () => exitFailCause(exit4.cause))),
  otherScope: globalScope
})))), SynchronizedSymbolKey = "effect/Ref/SynchronizedRef", SynchronizedTypeId = /* @__PURE__ */ Symbol.for(SynchronizedSymbolKey), synchronizedVariance = {
  /* c8 ignore next */
  _A: (_) => _
}, SynchronizedImpl = class extends Class2 {
  ref;
  withLock;
  [SynchronizedTypeId] = synchronizedVariance;
  [RefTypeId] = refVariance;
  [TypeId10] = TypeId10;
  constructor(ref, withLock) {
    super(), this.ref = ref, this.withLock = withLock, this.get = get9(this.ref);
  }
  get;
  commit() {
    return this.get;
  }
  modify(f) {
    return this.modifyEffect((a) => succeed(f(a)));
  }
  modifyEffect(f) {
    return this.withLock(pipe(flatMap7(get9(this.ref), f), flatMap7(([b, a]) => as(set4(this.ref, a), b))));
  }
}, makeSynchronized = (value2) => sync(() => unsafeMakeSynchronized(value2)), unsafeMakeSynchronized = (value2) => {
  let ref = unsafeMake5(value2), sem = unsafeMakeSemaphore(1);
  return new SynchronizedImpl(ref, sem.withPermits(1));
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/managedRuntime/circular.js
var TypeId13 = /* @__PURE__ */ Symbol.for("effect/ManagedRuntime");

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/layer.js
var OP_FRESH = "Fresh", OP_FROM_EFFECT = "FromEffect";
var OP_MERGE_ALL = "MergeAll";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Fiber.js
var _await2 = _await;
var inheritAll2 = inheritAll, interrupt5 = interruptFiber;
var interruptAs = interruptAsFiber;
var join3 = join2;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/runtime.js
var makeDual = (f) => function() {
  if (arguments.length === 1) {
    let runtime4 = arguments[0];
    return (effect3, ...args2) => f(runtime4, effect3, ...args2);
  }
  return f.apply(this, arguments);
}, unsafeFork3 = /* @__PURE__ */ makeDual((runtime4, self, options) => {
  let fiberId2 = unsafeMake3(), fiberRefUpdates = [[currentContext, [[fiberId2, runtime4.context]]]];
  options?.scheduler && fiberRefUpdates.push([currentScheduler, [[fiberId2, options.scheduler]]]);
  let fiberRefs3 = updateManyAs2(runtime4.fiberRefs, {
    entries: fiberRefUpdates,
    forkAs: fiberId2
  });
  options?.updateRefs && (fiberRefs3 = options.updateRefs(fiberRefs3, fiberId2));
  let fiberRuntime = new FiberRuntime(fiberId2, fiberRefs3, runtime4.runtimeFlags), effect3 = self;
  options?.scope && (effect3 = flatMap7(fork(options.scope, sequential2), (closeableScope) => zipRight(scopeAddFinalizer(closeableScope, fiberIdWith((id2) => equals(id2, fiberRuntime.id()) ? void_ : interruptAsFiber(fiberRuntime, id2))), onExit(self, (exit4) => close(closeableScope, exit4)))));
  let supervisor = fiberRuntime.currentSupervisor;
  return supervisor !== none7 && (supervisor.onStart(runtime4.context, effect3, none2(), fiberRuntime), fiberRuntime.addObserver((exit4) => supervisor.onEnd(exit4, fiberRuntime))), globalScope.add(runtime4.runtimeFlags, fiberRuntime), options?.immediate === !1 ? fiberRuntime.resume(effect3) : fiberRuntime.start(effect3), fiberRuntime;
});
var unsafeRunSync = /* @__PURE__ */ makeDual((runtime4, effect3) => {
  let result = unsafeRunSyncExit(runtime4)(effect3);
  if (result._tag === "Failure")
    throw fiberFailure(result.effect_instruction_i0);
  return result.effect_instruction_i0;
}), AsyncFiberExceptionImpl = class extends Error {
  fiber;
  _tag = "AsyncFiberException";
  constructor(fiber) {
    super(`Fiber #${fiber.id().id} cannot be resolved synchronously. This is caused by using runSync on an effect that performs async work`), this.fiber = fiber, this.name = this._tag, this.stack = this.message;
  }
}, asyncFiberException = (fiber) => {
  let limit = getStackTraceLimit();
  setStackTraceLimit(0);
  let error = new AsyncFiberExceptionImpl(fiber);
  return setStackTraceLimit(limit), error;
};
var FiberFailureId = /* @__PURE__ */ Symbol.for("effect/Runtime/FiberFailure"), FiberFailureCauseId = /* @__PURE__ */ Symbol.for("effect/Runtime/FiberFailure/Cause"), FiberFailureImpl = class extends Error {
  [FiberFailureId];
  [FiberFailureCauseId];
  constructor(cause2) {
    let head5 = prettyErrors(cause2)[0];
    super(head5?.message || "An error has occurred"), this[FiberFailureId] = FiberFailureId, this[FiberFailureCauseId] = cause2, this.name = head5 ? `(FiberFailure) ${head5.name}` : "FiberFailure", head5?.stack && (this.stack = head5.stack);
  }
  toJSON() {
    return {
      _id: "FiberFailure",
      cause: this[FiberFailureCauseId].toJSON()
    };
  }
  toString() {
    return "(FiberFailure) " + pretty(this[FiberFailureCauseId], {
      renderErrorCause: !0
    });
  }
  [NodeInspectSymbol]() {
    return this.toString();
  }
}, fiberFailure = (cause2) => {
  let limit = getStackTraceLimit();
  setStackTraceLimit(0);
  let error = new FiberFailureImpl(cause2);
  return setStackTraceLimit(limit), error;
};
var fastPath = (effect3) => {
  let op = effect3;
  switch (op._op) {
    case "Failure":
    case "Success":
      return op;
    case "Left":
      return exitFail(op.left);
    case "Right":
      return exitSucceed(op.right);
    case "Some":
      return exitSucceed(op.value);
    case "None":
      return exitFail(new NoSuchElementException());
  }
}, unsafeRunSyncExit = /* @__PURE__ */ makeDual((runtime4, effect3) => {
  let op = fastPath(effect3);
  if (op)
    return op;
  let scheduler = new SyncScheduler(), fiberRuntime = unsafeFork3(runtime4)(effect3, {
    scheduler
  });
  scheduler.flush();
  let result = fiberRuntime.unsafePoll();
  return result || exitDie(capture(asyncFiberException(fiberRuntime), currentSpanFromFiber(fiberRuntime)));
}), unsafeRunPromise = /* @__PURE__ */ makeDual((runtime4, effect3, options) => unsafeRunPromiseExit(runtime4, effect3, options).then((result) => {
  switch (result._tag) {
    case OP_SUCCESS:
      return result.effect_instruction_i0;
    case OP_FAILURE:
      throw fiberFailure(result.effect_instruction_i0);
  }
})), unsafeRunPromiseExit = /* @__PURE__ */ makeDual((runtime4, effect3, options) => new Promise((resolve) => {
  let op = fastPath(effect3);
  op && resolve(op);
  let fiber = unsafeFork3(runtime4)(effect3);
  if (fiber.addObserver((exit4) => {
    resolve(exit4);
  }), options?.signal !== void 0)
    if (options.signal.aborted)
      fiber.unsafeInterruptAsFork(fiber.id());
    else {
      let signal = options.signal, onAbort = () => {
        fiber.unsafeInterruptAsFork(fiber.id());
      };
      signal.addEventListener("abort", onAbort, {
        once: !0
      }), fiber.addObserver(() => {
        signal.removeEventListener("abort", onAbort);
      });
    }
})), RuntimeImpl = class {
  context;
  runtimeFlags;
  fiberRefs;
  constructor(context5, runtimeFlags2, fiberRefs3) {
    this.context = context5, this.runtimeFlags = runtimeFlags2, this.fiberRefs = fiberRefs3;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, make36 = (options) => new RuntimeImpl(options.context, options.runtimeFlags, options.fiberRefs), runtime2 = () => withFiberRuntime((state, status2) => succeed(new RuntimeImpl(state.getFiberRef(currentContext), status2.runtimeFlags, state.getFiberRefs()))), defaultRuntimeFlags = /* @__PURE__ */ make16(Interruption, CooperativeYielding, RuntimeMetrics), defaultRuntime = /* @__PURE__ */ make36({
  context: /* @__PURE__ */ empty9(),
  runtimeFlags: defaultRuntimeFlags,
  fiberRefs: /* @__PURE__ */ empty18()
});
var unsafeForkEffect = /* @__PURE__ */ unsafeFork3(defaultRuntime), unsafeRunPromiseEffect = /* @__PURE__ */ unsafeRunPromise(defaultRuntime);
var unsafeRunSyncEffect = /* @__PURE__ */ unsafeRunSync(defaultRuntime);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/synchronizedRef.js
var modifyEffect = /* @__PURE__ */ dual(2, (self, f) => self.modifyEffect(f));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/layer.js
var LayerSymbolKey = "effect/Layer", LayerTypeId = /* @__PURE__ */ Symbol.for(LayerSymbolKey), layerVariance = {
  /* c8 ignore next */
  _RIn: (_) => _,
  /* c8 ignore next */
  _E: (_) => _,
  /* c8 ignore next */
  _ROut: (_) => _
}, proto3 = {
  [LayerTypeId]: layerVariance,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, MemoMapTypeIdKey = "effect/Layer/MemoMap", MemoMapTypeId = /* @__PURE__ */ Symbol.for(MemoMapTypeIdKey), CurrentMemoMap = /* @__PURE__ */ Reference2()("effect/Layer/CurrentMemoMap", {
  defaultValue: () => unsafeMakeMemoMap()
}), isLayer = (u) => hasProperty(u, LayerTypeId), isFresh = (self) => self._op_layer === OP_FRESH, MemoMapImpl = class {
  ref;
  [MemoMapTypeId];
  constructor(ref) {
    this.ref = ref, this[MemoMapTypeId] = MemoMapTypeId;
  }
  /**
   * Checks the memo map to see if a layer exists. If it is, immediately
   * returns it. Otherwise, obtains the layer, stores it in the memo map,
   * and adds a finalizer to the `Scope`.
   */
  getOrElseMemoize(layer6, scope4) {
    return pipe(modifyEffect(this.ref, (map24) => {
      let inMap = map24.get(layer6);
      if (inMap !== void 0) {
        let [acquire, release2] = inMap, cached3 = pipe(acquire, flatMap7(([patch10, b]) => pipe(patchFiberRefs(patch10), as(b))), onExit(exitMatch({
          onFailure: () => void_,
          onSuccess: () => scopeAddFinalizerExit(scope4, release2)
        })));
        return succeed([cached3, map24]);
      }
      return pipe(make23(0), flatMap7((observers2) => pipe(deferredMake(), flatMap7((deferred) => pipe(make23(() => void_), map10((finalizerRef) => {
        let resource = uninterruptibleMask((restore) => pipe(scopeMake(), flatMap7((innerScope) => pipe(restore(flatMap7(makeBuilder(layer6, innerScope, !0), (f) => diffFiberRefs(f(this)))), exit, flatMap7((exit4) => {
          switch (exit4._tag) {
            case OP_FAILURE:
              return pipe(deferredFailCause(deferred, exit4.effect_instruction_i0), zipRight(scopeClose(innerScope, exit4)), zipRight(failCause(exit4.effect_instruction_i0)));
            case OP_SUCCESS:
              return pipe(set4(finalizerRef, (exit5) => pipe(scopeClose(innerScope, exit5), whenEffect(modify3(observers2, (n) => [n === 1, n - 1])), asVoid)), zipRight(update2(observers2, (n) => n + 1)), zipRight(scopeAddFinalizerExit(scope4, (exit5) => pipe(sync(() => map24.delete(layer6)), zipRight(get9(finalizerRef)), flatMap7((finalizer2) => finalizer2(exit5))))), zipRight(deferredSucceed(deferred, exit4.effect_instruction_i0)), as(exit4.effect_instruction_i0[1]));
          }
        }))))), memoized = [pipe(deferredAwait(deferred), onExit(exitMatchEffect({
          onFailure: () => void_,
          onSuccess: () => update2(observers2, (n) => n + 1)
        }))), (exit4) => pipe(get9(finalizerRef), flatMap7((finalizer2) => finalizer2(exit4)))];
        return [resource, isFresh(layer6) ? map24 : map24.set(layer6, memoized)];
      }))))));
    }), flatten3);
  }
}, makeMemoMap = /* @__PURE__ */ suspend(() => map10(makeSynchronized(/* @__PURE__ */ new Map()), (ref) => new MemoMapImpl(ref))), unsafeMakeMemoMap = () => new MemoMapImpl(unsafeMakeSynchronized(/* @__PURE__ */ new Map()));
var buildWithScope = /* @__PURE__ */ dual(2, (self, scope4) => flatMap7(makeMemoMap, (memoMap) => buildWithMemoMap(self, memoMap, scope4))), buildWithMemoMap = /* @__PURE__ */ dual(3, (self, memoMap, scope4) => flatMap7(makeBuilder(self, scope4), (run7) => provideService(run7(memoMap), CurrentMemoMap, memoMap))), makeBuilder = (self, scope4, inMemoMap = !1) => {
  let op = self;
  switch (op._op_layer) {
    case "Locally":
      return sync(() => (memoMap) => op.f(memoMap.getOrElseMemoize(op.self, scope4)));
    case "ExtendScope":
      return sync(() => (memoMap) => scopeWith((scope5) => memoMap.getOrElseMemoize(op.layer, scope5)));
    case "Fold":
      return sync(() => (memoMap) => pipe(memoMap.getOrElseMemoize(op.layer, scope4), matchCauseEffect({
        onFailure: (cause2) => memoMap.getOrElseMemoize(op.failureK(cause2), scope4),
        onSuccess: (value2) => memoMap.getOrElseMemoize(op.successK(value2), scope4)
      })));
    case "Fresh":
      return sync(() => (_) => pipe(op.layer, buildWithScope(scope4)));
    case "FromEffect":
      return inMemoMap ? sync(() => (_) => op.effect) : sync(() => (memoMap) => memoMap.getOrElseMemoize(self, scope4));
    case "Provide":
      return sync(() => (memoMap) => pipe(memoMap.getOrElseMemoize(op.first, scope4), flatMap7((env) => pipe(memoMap.getOrElseMemoize(op.second, scope4), provideContext(env)))));
    case "Scoped":
      return inMemoMap ? sync(() => (_) => scopeExtend(op.effect, scope4)) : sync(() => (memoMap) => memoMap.getOrElseMemoize(self, scope4));
    case "Suspend":
      return sync(() => (memoMap) => memoMap.getOrElseMemoize(op.evaluate(), scope4));
    case "ProvideMerge":
      return sync(() => (memoMap) => pipe(memoMap.getOrElseMemoize(op.first, scope4), zipWith2(memoMap.getOrElseMemoize(op.second, scope4), op.zipK)));
    case "ZipWith":
      return gen(function* () {
        let parallelScope = yield* scopeFork(scope4, parallel2), firstScope = yield* scopeFork(parallelScope, sequential2), secondScope = yield* scopeFork(parallelScope, sequential2);
        return (memoMap) => pipe(memoMap.getOrElseMemoize(op.first, firstScope), zipWithOptions(memoMap.getOrElseMemoize(op.second, secondScope), op.zipK, {
          concurrent: !0
        }));
      });
    case "MergeAll": {
      let layers = op.layers;
      return map10(scopeFork(scope4, parallel2), (parallelScope) => (memoMap) => {
        let contexts = new Array(layers.length);
        return map10(forEachConcurrentDiscard(layers, fnUntraced(function* (layer6, i) {
          let scope5 = yield* scopeFork(parallelScope, sequential2), context5 = yield* memoMap.getOrElseMemoize(layer6, scope5);
          contexts[i] = context5;
        }), !1, !1), () => mergeAll2(...contexts));
      });
    }
  }
};
var fromEffect3 = /* @__PURE__ */ dual(2, (a, b) => {
  let tagFirst = isTag2(a), tag2 = tagFirst ? a : b;
  return fromEffectContext(map10(tagFirst ? b : a, (service2) => make9(tag2, service2)));
});
function fromEffectContext(effect3) {
  let fromEffect9 = Object.create(proto3);
  return fromEffect9._op_layer = OP_FROM_EFFECT, fromEffect9.effect = effect3, fromEffect9;
}
var mergeAll3 = (...layers) => {
  let mergeAll7 = Object.create(proto3);
  return mergeAll7._op_layer = OP_MERGE_ALL, mergeAll7.layers = layers, mergeAll7;
};
var succeed5 = /* @__PURE__ */ dual(2, (a, b) => {
  let tagFirst = isTag2(a);
  return fromEffectContext(succeed(make9(tagFirst ? a : b, tagFirst ? b : a)));
});
var sync3 = /* @__PURE__ */ dual(2, (a, b) => {
  let tagFirst = isTag2(a), tag2 = tagFirst ? a : b, evaluate2 = tagFirst ? b : a;
  return fromEffectContext(sync(() => make9(tag2, evaluate2())));
});
var provideSomeLayer = /* @__PURE__ */ dual(2, (self, layer6) => scopedWith((scope4) => flatMap7(buildWithScope(layer6, scope4), (context5) => provideSomeContext(self, context5)))), provideSomeRuntime = /* @__PURE__ */ dual(2, (self, rt) => {
  let patchRefs = diff6(defaultRuntime.fiberRefs, rt.fiberRefs), patchFlags = diff4(defaultRuntime.runtimeFlags, rt.runtimeFlags);
  return uninterruptibleMask((restore) => withFiberRuntime((fiber) => {
    let oldContext = fiber.getFiberRef(currentContext), oldRefs = fiber.getFiberRefs(), newRefs = patch7(fiber.id(), oldRefs)(patchRefs), oldFlags = fiber.currentRuntimeFlags, newFlags = patch4(patchFlags)(oldFlags), rollbackRefs = diff6(newRefs, oldRefs), rollbackFlags = diff4(newFlags, oldFlags);
    return fiber.setFiberRefs(newRefs), fiber.currentRuntimeFlags = newFlags, ensuring(provideSomeContext(restore(self), merge3(oldContext, rt.context)), withFiberRuntime((fiber2) => (fiber2.setFiberRefs(patch7(fiber2.id(), fiber2.getFiberRefs())(rollbackRefs)), fiber2.currentRuntimeFlags = patch4(rollbackFlags)(fiber2.currentRuntimeFlags), void_)));
  }));
}), effect_provide = /* @__PURE__ */ dual(2, (self, source) => Array.isArray(source) ? provideSomeLayer(self, mergeAll3(...source)) : isLayer(source) ? provideSomeLayer(self, source) : isContext2(source) ? provideSomeContext(self, source) : TypeId13 in source ? flatMap7(source.runtimeEffect, (rt) => provideSomeRuntime(self, rt)) : provideSomeRuntime(self, source));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Data.js
var struct2 = struct;
var tagged2 = (tag2) => (args2) => {
  let value2 = args2 === void 0 ? Object.create(StructuralPrototype) : struct2(args2);
  return value2._tag = tag2, value2;
}, Class3 = Structural, TaggedClass = (tag2) => {
  class Base3 extends Class3 {
    _tag = tag2;
  }
  return Base3;
};
var taggedEnum = () => new Proxy({}, {
  get(_target, tag2, _receiver) {
    return tag2 === "$is" ? isTagged : tag2 === "$match" ? taggedMatch : tagged2(tag2);
  }
});
function taggedMatch() {
  if (arguments.length === 1) {
    let cases2 = arguments[0];
    return function(value3) {
      return cases2[value3._tag](value3);
    };
  }
  let value2 = arguments[0];
  return arguments[1][value2._tag](value2);
}
var Error3 = /* @__PURE__ */ (function() {
  let plainArgsSymbol = /* @__PURE__ */ Symbol.for("effect/Data/Error/plainArgs");
  return {
    BaseEffectError: class extends YieldableError {
      constructor(args2) {
        super(args2?.message, args2?.cause ? {
          cause: args2.cause
        } : void 0), args2 && (Object.assign(this, args2), Object.defineProperty(this, plainArgsSymbol, {
          value: args2,
          enumerable: !1
        }));
      }
      toJSON() {
        return {
          ...this[plainArgsSymbol],
          ...this
        };
      }
    }
  }.BaseEffectError;
})(), TaggedError = (tag2) => {
  let O = {
    BaseEffectError: class extends Error3 {
      _tag = tag2;
    }
  };
  return O.BaseEffectError.prototype.name = tag2, O.BaseEffectError;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Random.js
var next2 = next;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/schedule.js
var ScheduleSymbolKey = "effect/Schedule", ScheduleTypeId = /* @__PURE__ */ Symbol.for(ScheduleSymbolKey), isSchedule = (u) => hasProperty(u, ScheduleTypeId), ScheduleDriverSymbolKey = "effect/ScheduleDriver", ScheduleDriverTypeId = /* @__PURE__ */ Symbol.for(ScheduleDriverSymbolKey), defaultIterationMetadata = {
  start: 0,
  now: 0,
  input: void 0,
  output: void 0,
  elapsed: zero,
  elapsedSincePrevious: zero,
  recurrence: 0
}, CurrentIterationMetadata = /* @__PURE__ */ Reference2()("effect/Schedule/CurrentIterationMetadata", {
  defaultValue: () => defaultIterationMetadata
}), scheduleVariance = {
  /* c8 ignore next */
  _Out: (_) => _,
  /* c8 ignore next */
  _In: (_) => _,
  /* c8 ignore next */
  _R: (_) => _
}, scheduleDriverVariance = {
  /* c8 ignore next */
  _Out: (_) => _,
  /* c8 ignore next */
  _In: (_) => _,
  /* c8 ignore next */
  _R: (_) => _
}, ScheduleImpl = class {
  initial;
  step;
  [ScheduleTypeId] = scheduleVariance;
  constructor(initial2, step4) {
    this.initial = initial2, this.step = step4;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, updateInfo = (iterationMetaRef, now2, input2, output) => update2(iterationMetaRef, (prev) => prev.recurrence === 0 ? {
  now: now2,
  input: input2,
  output,
  recurrence: prev.recurrence + 1,
  elapsed: zero,
  elapsedSincePrevious: zero,
  start: now2
} : {
  now: now2,
  input: input2,
  output,
  recurrence: prev.recurrence + 1,
  elapsed: millis(now2 - prev.start),
  elapsedSincePrevious: millis(now2 - prev.now),
  start: prev.start
}), ScheduleDriverImpl = class {
  schedule;
  ref;
  [ScheduleDriverTypeId] = scheduleDriverVariance;
  constructor(schedule2, ref) {
    this.schedule = schedule2, this.ref = ref;
  }
  get state() {
    return map10(get9(this.ref), (tuple2) => tuple2[1]);
  }
  get last() {
    return flatMap7(get9(this.ref), ([element, _]) => {
      switch (element._tag) {
        case "None":
          return failSync(() => new NoSuchElementException());
        case "Some":
          return succeed(element.value);
      }
    });
  }
  iterationMeta = /* @__PURE__ */ unsafeMake5(defaultIterationMetadata);
  get reset() {
    return set4(this.ref, [none2(), this.schedule.initial]).pipe(zipLeft(set4(this.iterationMeta, defaultIterationMetadata)));
  }
  next(input2) {
    return pipe(map10(get9(this.ref), (tuple2) => tuple2[1]), flatMap7((state) => pipe(currentTimeMillis2, flatMap7((now2) => pipe(suspend(() => this.schedule.step(now2, input2, state)), flatMap7(([state2, out, decision]) => {
      let setState = set4(this.ref, [some2(out), state2]);
      if (isDone4(decision))
        return setState.pipe(zipRight(fail2(none2())));
      let millis2 = start2(decision.intervals) - now2;
      if (millis2 <= 0)
        return setState.pipe(zipRight(updateInfo(this.iterationMeta, now2, input2, out)), as(out));
      let duration3 = millis(millis2);
      return pipe(setState, zipRight(updateInfo(this.iterationMeta, now2, input2, out)), zipRight(sleep3(duration3)), as(out));
    }))))));
  }
}, makeWithState = (initial2, step4) => new ScheduleImpl(initial2, step4), addDelay = /* @__PURE__ */ dual(2, (self, f) => addDelayEffect(self, (out) => sync(() => f(out)))), addDelayEffect = /* @__PURE__ */ dual(2, (self, f) => modifyDelayEffect(self, (out, duration3) => map10(f(out), (delay2) => sum(duration3, decode(delay2)))));
var check = /* @__PURE__ */ dual(2, (self, test) => checkEffect(self, (input2, out) => sync(() => test(input2, out)))), checkEffect = /* @__PURE__ */ dual(2, (self, test) => makeWithState(self.initial, (now2, input2, state) => flatMap7(self.step(now2, input2, state), ([state2, out, decision]) => isDone4(decision) ? succeed([state2, out, done5]) : map10(test(input2, out), (cont) => cont ? [state2, out, decision] : [state2, out, done5]))));
var delayedEffect = /* @__PURE__ */ dual(2, (self, f) => modifyDelayEffect(self, (_, delay2) => f(delay2))), delayedSchedule = (schedule2) => addDelay(schedule2, (x) => x);
var driver = (self) => pipe(make23([none2(), self.initial]), map10((ref) => new ScheduleDriverImpl(self, ref)));
var exponential2 = (baseInput, factor = 2) => {
  let base = decode(baseInput);
  return delayedSchedule(map15(forever2, (i) => times(base, Math.pow(factor, i))));
};
var identity2 = () => makeWithState(void 0, (now2, input2, state) => succeed([state, input2, continueWith2(after2(now2))])), intersect5 = /* @__PURE__ */ dual(2, (self, that) => intersectWith(self, that, intersect4)), intersectWith = /* @__PURE__ */ dual(3, (self, that, f) => makeWithState([self.initial, that.initial], (now2, input2, state) => pipe(zipWith2(self.step(now2, input2, state[0]), that.step(now2, input2, state[1]), (a, b) => [a, b]), flatMap7(([[lState, out, lDecision], [rState, out2, rDecision]]) => isContinue2(lDecision) && isContinue2(rDecision) ? intersectWithLoop(self, that, input2, lState, out, lDecision.intervals, rState, out2, rDecision.intervals, f) : succeed([[lState, rState], [out, out2], done5]))))), intersectWithLoop = (self, that, input2, lState, out, lInterval, rState, out2, rInterval, f) => {
  let combined = f(lInterval, rInterval);
  return isNonEmpty4(combined) ? succeed([[lState, rState], [out, out2], _continue2(combined)]) : pipe(lInterval, lessThan5(rInterval)) ? flatMap7(self.step(end2(lInterval), input2, lState), ([lState2, out3, decision]) => isDone4(decision) ? succeed([[lState2, rState], [out3, out2], done5]) : intersectWithLoop(self, that, input2, lState2, out3, decision.intervals, rState, out2, rInterval, f)) : flatMap7(that.step(end2(rInterval), input2, rState), ([rState2, out22, decision]) => isDone4(decision) ? succeed([[lState, rState2], [out, out22], done5]) : intersectWithLoop(self, that, input2, lState, out, lInterval, rState2, out22, decision.intervals, f));
}, jittered = (self) => jitteredWith(self, {
  min: 0.8,
  max: 1.2
}), jitteredWith = /* @__PURE__ */ dual(2, (self, options) => {
  let {
    max: max6,
    min: min4
  } = Object.assign({
    min: 0.8,
    max: 1.2
  }, options);
  return delayedEffect(self, (duration3) => map10(next2, (random3) => {
    let d = toMillis(duration3), jittered3 = d * min4 * (1 - random3) + d * max6 * random3;
    return millis(jittered3);
  }));
});
var map15 = /* @__PURE__ */ dual(2, (self, f) => mapEffect2(self, (out) => sync(() => f(out)))), mapEffect2 = /* @__PURE__ */ dual(2, (self, f) => makeWithState(self.initial, (now2, input2, state) => flatMap7(self.step(now2, input2, state), ([state2, out, decision]) => map10(f(out), (out2) => [state2, out2, decision]))));
var modifyDelay = /* @__PURE__ */ dual(2, (self, f) => modifyDelayEffect(self, (out, duration3) => sync(() => f(out, duration3)))), modifyDelayEffect = /* @__PURE__ */ dual(2, (self, f) => makeWithState(self.initial, (now2, input2, state) => flatMap7(self.step(now2, input2, state), ([state2, out, decision]) => {
  if (isDone4(decision))
    return succeed([state2, out, decision]);
  let intervals = decision.intervals, delay2 = size9(make32(now2, start2(intervals)));
  return map10(f(out, delay2), (durationInput) => {
    let duration3 = decode(durationInput), oldStart = start2(intervals), newStart = now2 + toMillis(duration3), delta = newStart - oldStart, newEnd = Math.max(0, end2(intervals) + delta), newInterval = make32(newStart, newEnd);
    return [state2, out, continueWith2(newInterval)];
  });
})));
var passthrough = (self) => makeWithState(self.initial, (now2, input2, state) => pipe(self.step(now2, input2, state), map10(([state2, _, decision]) => [state2, input2, decision])));
var recurs = (n) => whileOutput(forever2, (out) => out < n);
var unfold2 = (initial2, f) => makeWithState(initial2, (now2, _, state) => sync(() => [f(state), state, continueWith2(after2(now2))]));
var untilInputEffect = /* @__PURE__ */ dual(2, (self, f) => checkEffect(self, (input2, _) => negate(f(input2))));
var whileInput = /* @__PURE__ */ dual(2, (self, f) => check(self, (input2, _) => f(input2))), whileInputEffect = /* @__PURE__ */ dual(2, (self, f) => checkEffect(self, (input2, _) => f(input2))), whileOutput = /* @__PURE__ */ dual(2, (self, f) => check(self, (_, out) => f(out)));
var ScheduleDefectTypeId = /* @__PURE__ */ Symbol.for("effect/Schedule/ScheduleDefect"), ScheduleDefect = class {
  error;
  [ScheduleDefectTypeId];
  constructor(error) {
    this.error = error, this[ScheduleDefectTypeId] = ScheduleDefectTypeId;
  }
}, isScheduleDefect = (u) => hasProperty(u, ScheduleDefectTypeId), scheduleDefectWrap = (self) => catchAll(self, (e) => die2(new ScheduleDefect(e))), scheduleDefectRefailCause = (cause2) => match2(find(cause2, (_) => isDieType(_) && isScheduleDefect(_.defect) ? some2(_.defect) : none2()), {
  onNone: () => cause2,
  onSome: (error) => fail(error.error)
}), scheduleDefectRefail = (effect3) => catchAllCause(effect3, (cause2) => failCause(scheduleDefectRefailCause(cause2))), repeat_Effect = /* @__PURE__ */ dual(2, (self, schedule2) => repeatOrElse_Effect(self, schedule2, (e, _) => fail2(e))), repeat_combined = /* @__PURE__ */ dual(2, (self, options) => {
  if (isSchedule(options))
    return repeat_Effect(self, options);
  let base = options.schedule ?? passthrough(forever2), withWhile = options.while ? whileInputEffect(base, (a) => {
    let applied = options.while(a);
    return typeof applied == "boolean" ? succeed(applied) : scheduleDefectWrap(applied);
  }) : base, withUntil = options.until ? untilInputEffect(withWhile, (a) => {
    let applied = options.until(a);
    return typeof applied == "boolean" ? succeed(applied) : scheduleDefectWrap(applied);
  }) : withWhile, withTimes = options.times ? intersect5(withUntil, recurs(options.times)).pipe(map15((intersectionPair) => intersectionPair[0])) : withUntil;
  return scheduleDefectRefail(repeat_Effect(self, withTimes));
}), repeatOrElse_Effect = /* @__PURE__ */ dual(3, (self, schedule2, orElse10) => flatMap7(driver(schedule2), (driver2) => matchEffect(self, {
  onFailure: (error) => orElse10(error, none2()),
  onSuccess: (value2) => repeatOrElseEffectLoop(provideServiceEffect(self, CurrentIterationMetadata, get9(driver2.iterationMeta)), driver2, (error, option4) => provideServiceEffect(orElse10(error, option4), CurrentIterationMetadata, get9(driver2.iterationMeta)), value2)
}))), repeatOrElseEffectLoop = (self, driver2, orElse10, value2) => matchEffect(driver2.next(value2), {
  onFailure: () => orDie(driver2.last),
  onSuccess: (b) => matchEffect(self, {
    onFailure: (error) => orElse10(error, some2(b)),
    onSuccess: (value3) => repeatOrElseEffectLoop(self, driver2, orElse10, value3)
  })
});
var forever2 = /* @__PURE__ */ unfold2(0, (n) => n + 1);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Deferred.js
var make37 = deferredMake;
var _await3 = deferredAwait;
var failCause5 = deferredFailCause;
var isDone5 = deferredIsDone;
var succeed6 = deferredSucceed;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/MutableList.js
var TypeId14 = /* @__PURE__ */ Symbol.for("effect/MutableList"), MutableListProto = {
  [TypeId14]: TypeId14,
  [Symbol.iterator]() {
    let done7 = !1, head5 = this.head;
    return {
      next() {
        if (done7)
          return this.return();
        if (head5 == null)
          return done7 = !0, this.return();
        let value2 = head5.value;
        return head5 = head5.next, {
          done: done7,
          value: value2
        };
      },
      return(value2) {
        return done7 || (done7 = !0), {
          done: !0,
          value: value2
        };
      }
    };
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "MutableList",
      values: Array.from(this).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, makeNode = (value2) => ({
  value: value2,
  removed: !1,
  prev: void 0,
  next: void 0
}), empty28 = () => {
  let list = Object.create(MutableListProto);
  return list.head = void 0, list.tail = void 0, list._length = 0, list;
};
var isEmpty8 = (self) => length(self) === 0, length = (self) => self._length;
var append3 = /* @__PURE__ */ dual(2, (self, value2) => {
  let node = makeNode(value2);
  return self.head === void 0 && (self.head = node), self.tail === void 0 || (self.tail.next = node, node.prev = self.tail), self.tail = node, self._length += 1, self;
}), shift = (self) => {
  let head5 = self.head;
  if (head5 !== void 0)
    return remove6(self, head5), head5.value;
};
var remove6 = (self, node) => {
  node.removed || (node.removed = !0, node.prev !== void 0 && node.next !== void 0 ? (node.prev.next = node.next, node.next.prev = node.prev) : node.prev !== void 0 ? (self.tail = node.prev, node.prev.next = void 0) : node.next !== void 0 ? (self.head = node.next, node.next.prev = void 0) : (self.tail = void 0, self.head = void 0), self._length > 0 && (self._length -= 1));
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/MutableQueue.js
var TypeId15 = /* @__PURE__ */ Symbol.for("effect/MutableQueue"), EmptyMutableQueue = /* @__PURE__ */ Symbol.for("effect/mutable/MutableQueue/Empty"), MutableQueueProto = {
  [TypeId15]: TypeId15,
  [Symbol.iterator]() {
    return Array.from(this.queue)[Symbol.iterator]();
  },
  toString() {
    return format(this.toJSON());
  },
  toJSON() {
    return {
      _id: "MutableQueue",
      values: Array.from(this).map(toJSON)
    };
  },
  [NodeInspectSymbol]() {
    return this.toJSON();
  },
  pipe() {
    return pipeArguments(this, arguments);
  }
}, make38 = (capacity4) => {
  let queue = Object.create(MutableQueueProto);
  return queue.queue = empty28(), queue.capacity = capacity4, queue;
}, bounded = (capacity4) => make38(capacity4), unbounded = () => make38(void 0), length2 = (self) => length(self.queue), isEmpty9 = (self) => isEmpty8(self.queue);
var capacity = (self) => self.capacity === void 0 ? 1 / 0 : self.capacity, offer = /* @__PURE__ */ dual(2, (self, value2) => {
  let queueLength = length(self.queue);
  return self.capacity !== void 0 && queueLength === self.capacity ? !1 : (append3(value2)(self.queue), !0);
}), offerAll = /* @__PURE__ */ dual(2, (self, values3) => {
  let iterator = values3[Symbol.iterator](), next3, remainder = empty3(), offering = !0;
  for (; offering && (next3 = iterator.next()) && !next3.done; )
    offering = offer(next3.value)(self);
  for (; next3 != null && !next3.done; )
    remainder = prepend2(next3.value)(remainder), next3 = iterator.next();
  return reverse2(remainder);
}), poll2 = /* @__PURE__ */ dual(2, (self, def) => isEmpty8(self.queue) ? def : shift(self.queue)), pollUpTo = /* @__PURE__ */ dual(2, (self, n) => {
  let result = empty3(), count3 = 0;
  for (; count3 < n; ) {
    let element = poll2(EmptyMutableQueue)(self);
    if (element === EmptyMutableQueue)
      break;
    result = prepend2(element)(result), count3 += 1;
  }
  return reverse2(result);
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Effect.js
var isEffect2 = isEffect;
var all4 = all3;
var forEach7 = forEach6;
var async2 = async_;
var withFiberRuntime2 = withFiberRuntime, fail6 = fail2;
var failCause6 = failCause;
var die5 = die2, dieMessage2 = dieMessage;
var gen2 = gen;
var succeed7 = succeed;
var suspend3 = suspend, sync4 = sync, _void = void_;
var catchAll2 = catchAll, catchAllCause2 = catchAllCause;
var ignore2 = ignore;
var try_2 = try_;
var interrupt6 = interrupt2;
var interruptible4 = interruptible2;
var onInterrupt2 = onInterrupt, uninterruptible2 = uninterruptible, uninterruptibleMask3 = uninterruptibleMask;
var as4 = as;
var asVoid2 = asVoid;
var map16 = map10;
var mapBoth3 = mapBoth2, mapError2 = mapError;
var acquireRelease2 = acquireRelease;
var acquireUseRelease2 = acquireUseRelease;
var ensuring2 = ensuring;
var onExit3 = onExit;
var scope2 = scope;
var scopedWith2 = scopedWith;
var fiberIdWith2 = fiberIdWith;
var forkDaemon2 = forkDaemon;
var forkIn2 = forkIn;
var clock2 = clock, clockWith4 = clockWith3;
var sleep4 = sleep3;
var timeoutOption2 = timeoutOption;
var contextWith2 = contextWith;
var provide2 = effect_provide, provideService2 = provideService;
var either3 = either2, exit3 = exit, intoDeferred2 = intoDeferred;
var when2 = when;
var flatMap9 = flatMap7;
var flatten5 = flatten3, race2 = race;
var raceWith2 = raceWith;
var tap2 = tap;
var tapErrorCause2 = tapErrorCause;
var repeat = repeat_combined;
var match11 = match8, matchCause3 = matchCause, matchCauseEffect3 = matchCauseEffect;
var logWarning2 = logWarning;
var orDie2 = orDie;
var runtime3 = runtime2;
var makeSemaphore2 = makeSemaphore;
var runFork2 = unsafeForkEffect;
var runPromise = unsafeRunPromiseEffect;
var runSync = unsafeRunSyncEffect;
var zip5 = zipOptions, zipLeft2 = zipLeftOptions, zipRight3 = zipRightOptions, zipWith3 = zipWithOptions;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/ConfigError.js
var InvalidData2 = InvalidData;
var isMissingDataOnly2 = isMissingDataOnly;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/config.js
var ConfigSymbolKey = "effect/Config", ConfigTypeId = /* @__PURE__ */ Symbol.for(ConfigSymbolKey), configVariance = {
  /* c8 ignore next */
  _A: (_) => _
}, proto4 = {
  ...CommitPrototype,
  [ConfigTypeId]: configVariance,
  commit() {
    return config(this);
  }
};
var map17 = /* @__PURE__ */ dual(2, (self, f) => mapOrFail(self, (a) => right2(f(a))));
var mapOrFail = /* @__PURE__ */ dual(2, (self, f) => {
  let mapOrFail3 = Object.create(proto4);
  return mapOrFail3._tag = OP_MAP_OR_FAIL, mapOrFail3.original = self, mapOrFail3.mapOrFail = f, mapOrFail3;
}), nested2 = /* @__PURE__ */ dual(2, (self, name) => {
  let nested3 = Object.create(proto4);
  return nested3._tag = OP_NESTED, nested3.name = name, nested3.config = self, nested3;
});
var orElseIf = /* @__PURE__ */ dual(2, (self, options) => {
  let fallback2 = Object.create(proto4);
  return fallback2._tag = OP_FALLBACK, fallback2.first = self, fallback2.second = suspend4(options.orElse), fallback2.condition = options.if, fallback2;
}), option2 = (self) => pipe(self, map17(some2), orElseIf({
  orElse: () => succeed8(none2()),
  if: isMissingDataOnly2
})), primitive = (description, parse) => {
  let primitive2 = Object.create(proto4);
  return primitive2._tag = OP_PRIMITIVE, primitive2.description = description, primitive2.parse = parse, primitive2;
};
var string2 = (name) => {
  let config3 = primitive("a text property", right2);
  return name === void 0 ? config3 : nested2(config3, name);
};
var all5 = (arg) => Array.isArray(arg) ? tuple(arg) : Symbol.iterator in arg ? tuple([...arg]) : struct3(arg), struct3 = (r) => {
  let entries2 = Object.entries(r), result = pipe(entries2[0][1], map17((value2) => ({
    [entries2[0][0]]: value2
  })));
  if (entries2.length === 1)
    return result;
  let rest = entries2.slice(1);
  for (let [key, config3] of rest)
    result = pipe(result, zipWith4(config3, (record2, value2) => ({
      ...record2,
      [key]: value2
    })));
  return result;
}, succeed8 = (value2) => {
  let constant2 = Object.create(proto4);
  return constant2._tag = OP_CONSTANT, constant2.value = value2, constant2.parse = () => right2(value2), constant2;
}, suspend4 = (config3) => {
  let lazy = Object.create(proto4);
  return lazy._tag = OP_LAZY, lazy.config = config3, lazy;
};
var tuple = (tuple2) => {
  if (tuple2.length === 0)
    return succeed8([]);
  if (tuple2.length === 1)
    return map17(tuple2[0], (x) => [x]);
  let result = map17(tuple2[0], (x) => [x]);
  for (let i = 1; i < tuple2.length; i++) {
    let config3 = tuple2[i];
    result = pipe(result, zipWith4(config3, (tuple3, value2) => [...tuple3, value2]));
  }
  return result;
};
var zipWith4 = /* @__PURE__ */ dual(3, (self, that, f) => {
  let zipWith9 = Object.create(proto4);
  return zipWith9._tag = OP_ZIP_WITH, zipWith9.left = self, zipWith9.right = that, zipWith9.zip = f, zipWith9;
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Config.js
var all6 = all5;
var mapOrFail2 = mapOrFail;
var option3 = option2;
var string3 = string2;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Layer.js
var effect = fromEffect3;
var succeed9 = succeed5;
var sync6 = sync3;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/schema/util.js
var getKeysForIndexSignature = (input2, parameter) => {
  switch (parameter._tag) {
    case "StringKeyword":
    case "TemplateLiteral":
      return Object.keys(input2);
    case "SymbolKeyword":
      return Object.getOwnPropertySymbols(input2);
    case "Refinement":
      return getKeysForIndexSignature(input2, parameter.from);
  }
}, memoizeThunk = (f) => {
  let done7 = !1, a;
  return () => (done7 || (a = f(), done7 = !0), a);
}, isNonEmpty5 = (x) => Array.isArray(x), isSingle = (x) => !Array.isArray(x), formatPathKey = (key) => `[${formatPropertyKey(key)}]`, formatPath = (path) => isNonEmpty5(path) ? path.map(formatPathKey).join("") : formatPathKey(path);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/schema/errors.js
var getErrorMessage = (reason, details, path, ast) => {
  let out = reason;
  return path && isNonEmptyReadonlyArray(path) && (out += `
at path: ${formatPath(path)}`), details !== void 0 && (out += `
details: ${details}`), ast && (out += `
schema (${ast._tag}): ${ast}`), out;
};
var getSchemaExtendErrorMessage = (x, y, path) => getErrorMessage("Unsupported schema or overlapping types", `cannot extend ${x} with ${y}`, path);
var getASTUnsupportedKeySchemaErrorMessage = (ast) => getErrorMessage("Unsupported key schema", void 0, void 0, ast), getASTUnsupportedLiteralErrorMessage = (literal2) => getErrorMessage("Unsupported literal", `literal value: ${formatUnknown(literal2)}`), getASTDuplicateIndexSignatureErrorMessage = (type) => getErrorMessage("Duplicate index signature", `${type} index signature`), getASTIndexSignatureParameterErrorMessage = /* @__PURE__ */ getErrorMessage("Unsupported index signature parameter", "An index signature parameter type must be `string`, `symbol`, a template literal type or a refinement of the previous types"), getASTRequiredElementFollowinAnOptionalElementErrorMessage = /* @__PURE__ */ getErrorMessage("Invalid element", "A required element cannot follow an optional element. ts(1257)"), getASTDuplicatePropertySignatureTransformationErrorMessage = (key) => getErrorMessage("Duplicate property signature transformation", `Duplicate key ${formatUnknown(key)}`);
var getASTDuplicatePropertySignatureErrorMessage = (key) => getErrorMessage("Duplicate property signature", `Duplicate key ${formatUnknown(key)}`);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/schema/schemaId.js
var DateFromSelfSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/DateFromSelf"), GreaterThanSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/GreaterThan"), GreaterThanOrEqualToSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/GreaterThanOrEqualTo");
var IntSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/Int");
var FiniteSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/Finite");
var BetweenSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/Between");
var MinLengthSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/MinLength");

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/SchemaAST.js
var TypeConstructorAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/TypeConstructor"), BrandAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Brand"), SchemaIdAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/SchemaId"), MessageAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Message"), MissingMessageAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/MissingMessage"), IdentifierAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Identifier"), TitleAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Title"), AutoTitleAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/AutoTitle"), DescriptionAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Description"), ExamplesAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Examples"), DefaultAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Default"), JSONSchemaAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/JSONSchema"), ArbitraryAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Arbitrary"), PrettyAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Pretty"), EquivalenceAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Equivalence"), DocumentationAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Documentation"), ConcurrencyAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Concurrency"), BatchingAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Batching"), ParseIssueTitleAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/ParseIssueTitle"), ParseOptionsAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/ParseOptions"), DecodingFallbackAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/DecodingFallback"), SurrogateAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/Surrogate"), StableFilterAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/StableFilter"), getAnnotation = /* @__PURE__ */ dual(2, (annotated, key) => Object.prototype.hasOwnProperty.call(annotated.annotations, key) ? some2(annotated.annotations[key]) : none2());
var getBrandAnnotation = /* @__PURE__ */ getAnnotation(BrandAnnotationId);
var getMessageAnnotation = /* @__PURE__ */ getAnnotation(MessageAnnotationId), getMissingMessageAnnotation = /* @__PURE__ */ getAnnotation(MissingMessageAnnotationId), getTitleAnnotation = /* @__PURE__ */ getAnnotation(TitleAnnotationId), getAutoTitleAnnotation = /* @__PURE__ */ getAnnotation(AutoTitleAnnotationId), getIdentifierAnnotation = /* @__PURE__ */ getAnnotation(IdentifierAnnotationId), getDescriptionAnnotation = /* @__PURE__ */ getAnnotation(DescriptionAnnotationId);
var getConcurrencyAnnotation = /* @__PURE__ */ getAnnotation(ConcurrencyAnnotationId), getBatchingAnnotation = /* @__PURE__ */ getAnnotation(BatchingAnnotationId), getParseIssueTitleAnnotation = /* @__PURE__ */ getAnnotation(ParseIssueTitleAnnotationId), getParseOptionsAnnotation = /* @__PURE__ */ getAnnotation(ParseOptionsAnnotationId), getDecodingFallbackAnnotation = /* @__PURE__ */ getAnnotation(DecodingFallbackAnnotationId), getSurrogateAnnotation = /* @__PURE__ */ getAnnotation(SurrogateAnnotationId), getStableFilterAnnotation = /* @__PURE__ */ getAnnotation(StableFilterAnnotationId), hasStableFilter = (annotated) => exists(getStableFilterAnnotation(annotated), (b) => b === !0), JSONIdentifierAnnotationId = /* @__PURE__ */ Symbol.for("effect/annotation/JSONIdentifier"), getJSONIdentifierAnnotation = /* @__PURE__ */ getAnnotation(JSONIdentifierAnnotationId), getJSONIdentifier = (annotated) => orElse(getJSONIdentifierAnnotation(annotated), () => getIdentifierAnnotation(annotated));
var Declaration = class {
  typeParameters;
  decodeUnknown;
  encodeUnknown;
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "Declaration";
  constructor(typeParameters, decodeUnknown2, encodeUnknown3, annotations2 = {}) {
    this.typeParameters = typeParameters, this.decodeUnknown = decodeUnknown2, this.encodeUnknown = encodeUnknown3, this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return getOrElse(getExpected(this), () => "<declaration schema>");
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      typeParameters: this.typeParameters.map((ast) => ast.toJSON()),
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, createASTGuard = (tag2) => (ast) => ast._tag === tag2;
var Literal = class {
  literal;
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "Literal";
  constructor(literal2, annotations2 = {}) {
    this.literal = literal2, this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return getOrElse(getExpected(this), () => formatUnknown(this.literal));
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      literal: isBigInt(this.literal) ? String(this.literal) : this.literal,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, isLiteral = /* @__PURE__ */ createASTGuard("Literal"), $null = /* @__PURE__ */ new Literal(null);
var UniqueSymbol = class {
  symbol;
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "UniqueSymbol";
  constructor(symbol3, annotations2 = {}) {
    this.symbol = symbol3, this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return getOrElse(getExpected(this), () => formatUnknown(this.symbol));
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      symbol: String(this.symbol),
      annotations: toJSONAnnotations(this.annotations)
    };
  }
};
var UndefinedKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "UndefinedKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, undefinedKeyword = /* @__PURE__ */ new UndefinedKeyword({
  [TitleAnnotationId]: "undefined"
});
var VoidKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "VoidKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, voidKeyword = /* @__PURE__ */ new VoidKeyword({
  [TitleAnnotationId]: "void"
});
var NeverKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "NeverKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, neverKeyword = /* @__PURE__ */ new NeverKeyword({
  [TitleAnnotationId]: "never"
});
var UnknownKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "UnknownKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, unknownKeyword = /* @__PURE__ */ new UnknownKeyword({
  [TitleAnnotationId]: "unknown"
});
var AnyKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "AnyKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, anyKeyword = /* @__PURE__ */ new AnyKeyword({
  [TitleAnnotationId]: "any"
});
var StringKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "StringKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, stringKeyword = /* @__PURE__ */ new StringKeyword({
  [TitleAnnotationId]: "string",
  [DescriptionAnnotationId]: "a string"
}), isStringKeyword = /* @__PURE__ */ createASTGuard("StringKeyword"), NumberKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "NumberKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, numberKeyword = /* @__PURE__ */ new NumberKeyword({
  [TitleAnnotationId]: "number",
  [DescriptionAnnotationId]: "a number"
}), isNumberKeyword = /* @__PURE__ */ createASTGuard("NumberKeyword"), BooleanKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "BooleanKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, booleanKeyword = /* @__PURE__ */ new BooleanKeyword({
  [TitleAnnotationId]: "boolean",
  [DescriptionAnnotationId]: "a boolean"
}), isBooleanKeyword = /* @__PURE__ */ createASTGuard("BooleanKeyword"), BigIntKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "BigIntKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, bigIntKeyword = /* @__PURE__ */ new BigIntKeyword({
  [TitleAnnotationId]: "bigint",
  [DescriptionAnnotationId]: "a bigint"
});
var SymbolKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "SymbolKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, symbolKeyword = /* @__PURE__ */ new SymbolKeyword({
  [TitleAnnotationId]: "symbol",
  [DescriptionAnnotationId]: "a symbol"
}), isSymbolKeyword = /* @__PURE__ */ createASTGuard("SymbolKeyword"), ObjectKeyword = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "ObjectKeyword";
  constructor(annotations2 = {}) {
    this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return formatKeyword(this);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, objectKeyword = /* @__PURE__ */ new ObjectKeyword({
  [TitleAnnotationId]: "object",
  [DescriptionAnnotationId]: "an object in the TypeScript meaning, i.e. the `object` type"
});
var Type = class {
  type;
  annotations;
  constructor(type, annotations2 = {}) {
    this.type = type, this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      type: this.type.toJSON(),
      annotations: toJSONAnnotations(this.annotations)
    };
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return String(this.type);
  }
}, OptionalType = class extends Type {
  isOptional;
  constructor(type, isOptional, annotations2 = {}) {
    super(type, annotations2), this.isOptional = isOptional;
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      type: this.type.toJSON(),
      isOptional: this.isOptional,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return String(this.type) + (this.isOptional ? "?" : "");
  }
}, getRestASTs = (rest) => rest.map((annotatedAST) => annotatedAST.type), TupleType = class {
  elements;
  rest;
  isReadonly;
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "TupleType";
  constructor(elements, rest, isReadonly, annotations2 = {}) {
    this.elements = elements, this.rest = rest, this.isReadonly = isReadonly, this.annotations = annotations2;
    let hasOptionalElement = !1, hasIllegalRequiredElement = !1;
    for (let e of elements)
      if (e.isOptional)
        hasOptionalElement = !0;
      else if (hasOptionalElement) {
        hasIllegalRequiredElement = !0;
        break;
      }
    if (hasIllegalRequiredElement || hasOptionalElement && rest.length > 1)
      throw new Error(getASTRequiredElementFollowinAnOptionalElementErrorMessage);
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return getOrElse(getExpected(this), () => formatTuple(this));
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      elements: this.elements.map((e) => e.toJSON()),
      rest: this.rest.map((ast) => ast.toJSON()),
      isReadonly: this.isReadonly,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, formatTuple = (ast) => {
  let formattedElements = ast.elements.map(String).join(", ");
  return matchLeft(ast.rest, {
    onEmpty: () => `readonly [${formattedElements}]`,
    onNonEmpty: (head5, tail) => {
      let formattedHead = String(head5), wrappedHead = formattedHead.includes(" | ") ? `(${formattedHead})` : formattedHead;
      if (tail.length > 0) {
        let formattedTail = tail.map(String).join(", ");
        return ast.elements.length > 0 ? `readonly [${formattedElements}, ...${wrappedHead}[], ${formattedTail}]` : `readonly [...${wrappedHead}[], ${formattedTail}]`;
      } else
        return ast.elements.length > 0 ? `readonly [${formattedElements}, ...${wrappedHead}[]]` : `ReadonlyArray<${formattedHead}>`;
    }
  });
};
var PropertySignature = class extends OptionalType {
  name;
  isReadonly;
  constructor(name, type, isOptional, isReadonly, annotations2) {
    super(type, isOptional, annotations2), this.name = name, this.isReadonly = isReadonly;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return (this.isReadonly ? "readonly " : "") + String(this.name) + (this.isOptional ? "?" : "") + ": " + this.type;
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      name: String(this.name),
      type: this.type.toJSON(),
      isOptional: this.isOptional,
      isReadonly: this.isReadonly,
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, isParameter = (ast) => {
  switch (ast._tag) {
    case "StringKeyword":
    case "SymbolKeyword":
    case "TemplateLiteral":
      return !0;
    case "Refinement":
      return isParameter(ast.from);
  }
  return !1;
}, IndexSignature = class {
  type;
  isReadonly;
  /**
   * @since 3.10.0
   */
  parameter;
  constructor(parameter, type, isReadonly) {
    if (this.type = type, this.isReadonly = isReadonly, isParameter(parameter))
      this.parameter = parameter;
    else
      throw new Error(getASTIndexSignatureParameterErrorMessage);
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return (this.isReadonly ? "readonly " : "") + `[x: ${this.parameter}]: ${this.type}`;
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      parameter: this.parameter.toJSON(),
      type: this.type.toJSON(),
      isReadonly: this.isReadonly
    };
  }
}, TypeLiteral = class {
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "TypeLiteral";
  /**
   * @since 3.10.0
   */
  propertySignatures;
  /**
   * @since 3.10.0
   */
  indexSignatures;
  constructor(propertySignatures, indexSignatures, annotations2 = {}) {
    this.annotations = annotations2;
    let keys7 = {};
    for (let i = 0; i < propertySignatures.length; i++) {
      let name = propertySignatures[i].name;
      if (Object.prototype.hasOwnProperty.call(keys7, name))
        throw new Error(getASTDuplicatePropertySignatureErrorMessage(name));
      keys7[name] = null;
    }
    let parameters = {
      string: !1,
      symbol: !1
    };
    for (let i = 0; i < indexSignatures.length; i++) {
      let encodedParameter = getEncodedParameter(indexSignatures[i].parameter);
      if (isStringKeyword(encodedParameter)) {
        if (parameters.string)
          throw new Error(getASTDuplicateIndexSignatureErrorMessage("string"));
        parameters.string = !0;
      } else if (isSymbolKeyword(encodedParameter)) {
        if (parameters.symbol)
          throw new Error(getASTDuplicateIndexSignatureErrorMessage("symbol"));
        parameters.symbol = !0;
      }
    }
    this.propertySignatures = propertySignatures, this.indexSignatures = indexSignatures;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return getOrElse(getExpected(this), () => formatTypeLiteral(this));
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      propertySignatures: this.propertySignatures.map((ps) => ps.toJSON()),
      indexSignatures: this.indexSignatures.map((ps) => ps.toJSON()),
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, formatIndexSignatures = (iss) => iss.map(String).join("; "), formatTypeLiteral = (ast) => {
  if (ast.propertySignatures.length > 0) {
    let pss = ast.propertySignatures.map(String).join("; ");
    return ast.indexSignatures.length > 0 ? `{ ${pss}; ${formatIndexSignatures(ast.indexSignatures)} }` : `{ ${pss} }`;
  } else
    return ast.indexSignatures.length > 0 ? `{ ${formatIndexSignatures(ast.indexSignatures)} }` : "{}";
}, isTypeLiteral = /* @__PURE__ */ createASTGuard("TypeLiteral"), sortCandidates = /* @__PURE__ */ sort(/* @__PURE__ */ mapInput2(Order2, (ast) => {
  switch (ast._tag) {
    case "AnyKeyword":
      return 0;
    case "UnknownKeyword":
      return 1;
    case "ObjectKeyword":
      return 2;
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "BigIntKeyword":
    case "SymbolKeyword":
      return 3;
  }
  return 4;
})), literalMap = {
  string: "StringKeyword",
  number: "NumberKeyword",
  boolean: "BooleanKeyword",
  bigint: "BigIntKeyword"
}, flatten7 = (candidates) => flatMap2(candidates, (ast) => isUnion(ast) ? flatten7(ast.types) : [ast]), unify = (candidates) => {
  let cs = sortCandidates(candidates), out = [], uniques = {}, literals = [];
  for (let ast of cs)
    switch (ast._tag) {
      case "NeverKeyword":
        break;
      case "AnyKeyword":
        return [anyKeyword];
      case "UnknownKeyword":
        return [unknownKeyword];
      // uniques
      case "ObjectKeyword":
      case "UndefinedKeyword":
      case "VoidKeyword":
      case "StringKeyword":
      case "NumberKeyword":
      case "BooleanKeyword":
      case "BigIntKeyword":
      case "SymbolKeyword": {
        uniques[ast._tag] || (uniques[ast._tag] = ast, out.push(ast));
        break;
      }
      case "Literal": {
        let type = typeof ast.literal;
        switch (type) {
          case "string":
          case "number":
          case "bigint":
          case "boolean": {
            let _tag = literalMap[type];
            !uniques[_tag] && !literals.includes(ast.literal) && (literals.push(ast.literal), out.push(ast));
            break;
          }
          // null
          case "object": {
            literals.includes(ast.literal) || (literals.push(ast.literal), out.push(ast));
            break;
          }
        }
        break;
      }
      case "UniqueSymbol": {
        !uniques.SymbolKeyword && !literals.includes(ast.symbol) && (literals.push(ast.symbol), out.push(ast));
        break;
      }
      case "TupleType": {
        uniques.ObjectKeyword || out.push(ast);
        break;
      }
      case "TypeLiteral": {
        ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0 ? uniques["{}"] || (uniques["{}"] = ast, out.push(ast)) : uniques.ObjectKeyword || out.push(ast);
        break;
      }
      default:
        out.push(ast);
    }
  return out;
}, Union = class _Union {
  types;
  annotations;
  static make = (types, annotations2) => isMembers(types) ? new _Union(types, annotations2) : types.length === 1 ? types[0] : neverKeyword;
  /** @internal */
  static unify = (candidates, annotations2) => _Union.make(unify(flatten7(candidates)), annotations2);
  /**
   * @since 3.10.0
   */
  _tag = "Union";
  constructor(types, annotations2 = {}) {
    this.types = types, this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return getOrElse(getExpected(this), () => this.types.map(String).join(" | "));
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      types: this.types.map((ast) => ast.toJSON()),
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, mapMembers = (members, f) => members.map(f), isMembers = (as8) => as8.length > 1, isUnion = /* @__PURE__ */ createASTGuard("Union"), toJSONMemoMap = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/Schema/AST/toJSONMemoMap"), () => /* @__PURE__ */ new WeakMap()), Suspend = class {
  f;
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "Suspend";
  constructor(f, annotations2 = {}) {
    this.f = f, this.annotations = annotations2, this.f = memoizeThunk(f);
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return getExpected(this).pipe(orElse(() => flatMap(liftThrowable(this.f)(), (ast) => getExpected(ast))), getOrElse(() => "<suspended schema>"));
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    let ast = this.f(), out = toJSONMemoMap.get(ast);
    return out || (toJSONMemoMap.set(ast, {
      _tag: this._tag
    }), out = {
      _tag: this._tag,
      ast: ast.toJSON(),
      annotations: toJSONAnnotations(this.annotations)
    }, toJSONMemoMap.set(ast, out), out);
  }
};
var Refinement = class {
  from;
  filter;
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "Refinement";
  constructor(from, filter11, annotations2 = {}) {
    this.from = from, this.filter = filter11, this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return getIdentifierAnnotation(this).pipe(getOrElse(() => match2(getOrElseExpected(this), {
      onNone: () => `{ ${this.from} | filter }`,
      onSome: (expected2) => isRefinement(this.from) ? String(this.from) + " & " + expected2 : expected2
    })));
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      from: this.from.toJSON(),
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, isRefinement = /* @__PURE__ */ createASTGuard("Refinement"), defaultParseOption = {}, Transformation = class {
  from;
  to;
  transformation;
  annotations;
  /**
   * @since 3.10.0
   */
  _tag = "Transformation";
  constructor(from, to, transformation, annotations2 = {}) {
    this.from = from, this.to = to, this.transformation = transformation, this.annotations = annotations2;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return getOrElse(getExpected(this), () => `(${String(this.from)} <-> ${String(this.to)})`);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _tag: this._tag,
      from: this.from.toJSON(),
      to: this.to.toJSON(),
      annotations: toJSONAnnotations(this.annotations)
    };
  }
}, isTransformation = /* @__PURE__ */ createASTGuard("Transformation"), FinalTransformation = class {
  decode;
  encode;
  /**
   * @since 3.10.0
   */
  _tag = "FinalTransformation";
  constructor(decode3, encode3) {
    this.decode = decode3, this.encode = encode3;
  }
}, createTransformationGuard = (tag2) => (ast) => ast._tag === tag2;
var ComposeTransformation = class {
  /**
   * @since 3.10.0
   */
  _tag = "ComposeTransformation";
}, composeTransformation = /* @__PURE__ */ new ComposeTransformation();
var PropertySignatureTransformation = class {
  from;
  to;
  decode;
  encode;
  constructor(from, to, decode3, encode3) {
    this.from = from, this.to = to, this.decode = decode3, this.encode = encode3;
  }
};
var TypeLiteralTransformation = class {
  propertySignatureTransformations;
  /**
   * @since 3.10.0
   */
  _tag = "TypeLiteralTransformation";
  constructor(propertySignatureTransformations) {
    this.propertySignatureTransformations = propertySignatureTransformations;
    let fromKeys = {}, toKeys = {};
    for (let pst of propertySignatureTransformations) {
      let from = pst.from;
      if (fromKeys[from])
        throw new Error(getASTDuplicatePropertySignatureTransformationErrorMessage(from));
      fromKeys[from] = !0;
      let to = pst.to;
      if (toKeys[to])
        throw new Error(getASTDuplicatePropertySignatureTransformationErrorMessage(to));
      toKeys[to] = !0;
    }
  }
}, isTypeLiteralTransformation = /* @__PURE__ */ createTransformationGuard("TypeLiteralTransformation"), annotations = (ast, overrides) => {
  let d = Object.getOwnPropertyDescriptors(ast), base = {
    ...ast.annotations
  };
  delete base[IdentifierAnnotationId];
  let value2 = {
    ...base,
    ...overrides
  }, surrogate = getSurrogateAnnotation(ast);
  return isSome2(surrogate) && (value2[SurrogateAnnotationId] = annotations(surrogate.value, overrides)), d.annotations.value = value2, Object.create(Object.getPrototypeOf(ast), d);
};
var STRING_KEYWORD_PATTERN = "[\\s\\S]*?", NUMBER_KEYWORD_PATTERN = "[+-]?\\d*\\.?\\d+(?:[Ee][+-]?\\d+)?", getTemplateLiteralSpanTypePattern = (type, capture2) => {
  switch (type._tag) {
    case "Literal":
      return escape(String(type.literal));
    case "StringKeyword":
      return STRING_KEYWORD_PATTERN;
    case "NumberKeyword":
      return NUMBER_KEYWORD_PATTERN;
    case "TemplateLiteral":
      return getTemplateLiteralPattern(type, capture2, !1);
    case "Union":
      return type.types.map((type2) => getTemplateLiteralSpanTypePattern(type2, capture2)).join("|");
  }
}, handleTemplateLiteralSpanTypeParens = (type, s, capture2, top) => {
  if (isUnion(type)) {
    if (capture2 && !top)
      return `(?:${s})`;
  } else if (!capture2 || !top)
    return s;
  return `(${s})`;
}, getTemplateLiteralPattern = (ast, capture2, top) => {
  let pattern2 = "";
  if (ast.head !== "") {
    let head5 = escape(ast.head);
    pattern2 += capture2 && top ? `(${head5})` : head5;
  }
  for (let span2 of ast.spans) {
    let spanPattern = getTemplateLiteralSpanTypePattern(span2.type, capture2);
    if (pattern2 += handleTemplateLiteralSpanTypeParens(span2.type, spanPattern, capture2, top), span2.literal !== "") {
      let literal2 = escape(span2.literal);
      pattern2 += capture2 && top ? `(${literal2})` : literal2;
    }
  }
  return pattern2;
}, getTemplateLiteralRegExp = (ast) => new RegExp(`^${getTemplateLiteralPattern(ast, !1, !0)}$`);
var record = (key, value2) => {
  let propertySignatures = [], indexSignatures = [], go2 = (key2) => {
    switch (key2._tag) {
      case "NeverKeyword":
        break;
      case "StringKeyword":
      case "SymbolKeyword":
      case "TemplateLiteral":
      case "Refinement":
        indexSignatures.push(new IndexSignature(key2, value2, !0));
        break;
      case "Literal":
        if (isString(key2.literal) || isNumber(key2.literal))
          propertySignatures.push(new PropertySignature(key2.literal, value2, !1, !0));
        else
          throw new Error(getASTUnsupportedLiteralErrorMessage(key2.literal));
        break;
      case "Enums": {
        for (let [_, name] of key2.enums)
          propertySignatures.push(new PropertySignature(name, value2, !1, !0));
        break;
      }
      case "UniqueSymbol":
        propertySignatures.push(new PropertySignature(key2.symbol, value2, !1, !0));
        break;
      case "Union":
        key2.types.forEach(go2);
        break;
      default:
        throw new Error(getASTUnsupportedKeySchemaErrorMessage(key2));
    }
  };
  return go2(key), {
    propertySignatures,
    indexSignatures
  };
};
var pickAnnotations = (annotationIds) => (annotated) => {
  let out;
  for (let id2 of annotationIds)
    Object.prototype.hasOwnProperty.call(annotated.annotations, id2) && (out === void 0 && (out = {}), out[id2] = annotated.annotations[id2]);
  return out;
}, omitAnnotations = (annotationIds) => (annotated) => {
  let out = {
    ...annotated.annotations
  };
  for (let id2 of annotationIds)
    delete out[id2];
  return out;
}, preserveTransformationAnnotations = /* @__PURE__ */ pickAnnotations([ExamplesAnnotationId, DefaultAnnotationId, JSONSchemaAnnotationId, ArbitraryAnnotationId, PrettyAnnotationId, EquivalenceAnnotationId]), typeAST = (ast) => {
  switch (ast._tag) {
    case "Declaration": {
      let typeParameters = changeMap(ast.typeParameters, typeAST);
      return typeParameters === ast.typeParameters ? ast : new Declaration(typeParameters, ast.decodeUnknown, ast.encodeUnknown, ast.annotations);
    }
    case "TupleType": {
      let elements = changeMap(ast.elements, (e) => {
        let type = typeAST(e.type);
        return type === e.type ? e : new OptionalType(type, e.isOptional);
      }), restASTs = getRestASTs(ast.rest), rest = changeMap(restASTs, typeAST);
      return elements === ast.elements && rest === restASTs ? ast : new TupleType(elements, rest.map((type) => new Type(type)), ast.isReadonly, ast.annotations);
    }
    case "TypeLiteral": {
      let propertySignatures = changeMap(ast.propertySignatures, (p) => {
        let type = typeAST(p.type);
        return type === p.type ? p : new PropertySignature(p.name, type, p.isOptional, p.isReadonly);
      }), indexSignatures = changeMap(ast.indexSignatures, (is2) => {
        let type = typeAST(is2.type);
        return type === is2.type ? is2 : new IndexSignature(is2.parameter, type, is2.isReadonly);
      });
      return propertySignatures === ast.propertySignatures && indexSignatures === ast.indexSignatures ? ast : new TypeLiteral(propertySignatures, indexSignatures, ast.annotations);
    }
    case "Union": {
      let types = changeMap(ast.types, typeAST);
      return types === ast.types ? ast : Union.make(types, ast.annotations);
    }
    case "Suspend":
      return new Suspend(() => typeAST(ast.f()), ast.annotations);
    case "Refinement": {
      let from = typeAST(ast.from);
      return from === ast.from ? ast : new Refinement(from, ast.filter, ast.annotations);
    }
    case "Transformation": {
      let preserve = preserveTransformationAnnotations(ast);
      return typeAST(preserve !== void 0 ? annotations(ast.to, preserve) : ast.to);
    }
  }
  return ast;
};
function changeMap(as8, f) {
  let changed = !1, out = allocate(as8.length);
  for (let i = 0; i < as8.length; i++) {
    let a = as8[i], fa = f(a);
    fa !== a && (changed = !0), out[i] = fa;
  }
  return changed ? out : as8;
}
var getTransformationFrom = (ast) => {
  switch (ast._tag) {
    case "Transformation":
      return ast.from;
    case "Refinement":
      return getTransformationFrom(ast.from);
    case "Suspend":
      return getTransformationFrom(ast.f());
  }
}, encodedAST_ = (ast, isBound) => {
  switch (ast._tag) {
    case "Declaration": {
      let typeParameters = changeMap(ast.typeParameters, (ast2) => encodedAST_(ast2, isBound));
      return typeParameters === ast.typeParameters ? ast : new Declaration(typeParameters, ast.decodeUnknown, ast.encodeUnknown);
    }
    case "TupleType": {
      let elements = changeMap(ast.elements, (e) => {
        let type = encodedAST_(e.type, isBound);
        return type === e.type ? e : new OptionalType(type, e.isOptional);
      }), restASTs = getRestASTs(ast.rest), rest = changeMap(restASTs, (ast2) => encodedAST_(ast2, isBound));
      return elements === ast.elements && rest === restASTs ? ast : new TupleType(elements, rest.map((ast2) => new Type(ast2)), ast.isReadonly);
    }
    case "TypeLiteral": {
      let propertySignatures = changeMap(ast.propertySignatures, (ps) => {
        let type = encodedAST_(ps.type, isBound);
        return type === ps.type ? ps : new PropertySignature(ps.name, type, ps.isOptional, ps.isReadonly);
      }), indexSignatures = changeMap(ast.indexSignatures, (is2) => {
        let type = encodedAST_(is2.type, isBound);
        return type === is2.type ? is2 : new IndexSignature(is2.parameter, type, is2.isReadonly);
      });
      return propertySignatures === ast.propertySignatures && indexSignatures === ast.indexSignatures ? ast : new TypeLiteral(propertySignatures, indexSignatures);
    }
    case "Union": {
      let types = changeMap(ast.types, (ast2) => encodedAST_(ast2, isBound));
      return types === ast.types ? ast : Union.make(types);
    }
    case "Suspend": {
      let borrowedAnnotations, identifier2 = getJSONIdentifier(ast);
      if (isSome2(identifier2)) {
        let suffix = isBound ? "Bound" : "";
        borrowedAnnotations = {
          [JSONIdentifierAnnotationId]: `${identifier2.value}Encoded${suffix}`
        };
      }
      return new Suspend(() => encodedAST_(ast.f(), isBound), borrowedAnnotations);
    }
    case "Refinement": {
      let from = encodedAST_(ast.from, isBound);
      return isBound ? from === ast.from ? ast : getTransformationFrom(ast.from) === void 0 && hasStableFilter(ast) ? new Refinement(from, ast.filter, ast.annotations) : from : from;
    }
    case "Transformation":
      return encodedAST_(ast.from, isBound);
  }
  return ast;
}, encodedAST = (ast) => encodedAST_(ast, !1);
var toJSONAnnotations = (annotations2) => {
  let out = {};
  for (let k of Object.getOwnPropertySymbols(annotations2))
    out[String(k)] = annotations2[k];
  return out;
}, getEncodedParameter = (ast) => {
  switch (ast._tag) {
    case "StringKeyword":
    case "SymbolKeyword":
    case "TemplateLiteral":
      return ast;
    case "Refinement":
      return getEncodedParameter(ast.from);
  }
};
var formatKeyword = (ast) => getOrElse(getExpected(ast), () => ast._tag);
function getBrands(ast) {
  return match2(getBrandAnnotation(ast), {
    onNone: () => "",
    onSome: (brands) => brands.map((brand2) => ` & Brand<${formatUnknown(brand2)}>`).join("")
  });
}
var getOrElseExpected = (ast) => getTitleAnnotation(ast).pipe(orElse(() => getDescriptionAnnotation(ast)), orElse(() => getAutoTitleAnnotation(ast)), map2((s) => s + getBrands(ast))), getExpected = (ast) => orElse(getIdentifierAnnotation(ast), () => getOrElseExpected(ast));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/ParseResult.js
var Pointer = class {
  path;
  actual;
  issue;
  /**
   * @since 3.10.0
   */
  _tag = "Pointer";
  constructor(path, actual, issue) {
    this.path = path, this.actual = actual, this.issue = issue;
  }
}, Unexpected = class {
  actual;
  message;
  /**
   * @since 3.10.0
   */
  _tag = "Unexpected";
  constructor(actual, message2) {
    this.actual = actual, this.message = message2;
  }
}, Missing = class {
  ast;
  message;
  /**
   * @since 3.10.0
   */
  _tag = "Missing";
  /**
   * @since 3.10.0
   */
  actual = void 0;
  constructor(ast, message2) {
    this.ast = ast, this.message = message2;
  }
}, Composite2 = class {
  ast;
  actual;
  issues;
  output;
  /**
   * @since 3.10.0
   */
  _tag = "Composite";
  constructor(ast, actual, issues, output) {
    this.ast = ast, this.actual = actual, this.issues = issues, this.output = output;
  }
}, Refinement2 = class {
  ast;
  actual;
  kind;
  issue;
  /**
   * @since 3.10.0
   */
  _tag = "Refinement";
  constructor(ast, actual, kind, issue) {
    this.ast = ast, this.actual = actual, this.kind = kind, this.issue = issue;
  }
}, Transformation2 = class {
  ast;
  actual;
  kind;
  issue;
  /**
   * @since 3.10.0
   */
  _tag = "Transformation";
  constructor(ast, actual, kind, issue) {
    this.ast = ast, this.actual = actual, this.kind = kind, this.issue = issue;
  }
}, Type2 = class {
  ast;
  actual;
  message;
  /**
   * @since 3.10.0
   */
  _tag = "Type";
  constructor(ast, actual, message2) {
    this.ast = ast, this.actual = actual, this.message = message2;
  }
}, Forbidden = class {
  ast;
  actual;
  message;
  /**
   * @since 3.10.0
   */
  _tag = "Forbidden";
  constructor(ast, actual, message2) {
    this.ast = ast, this.actual = actual, this.message = message2;
  }
}, ParseErrorTypeId = /* @__PURE__ */ Symbol.for("effect/Schema/ParseErrorTypeId");
var ParseError = class extends (/* @__PURE__ */ TaggedError("ParseError")) {
  /**
   * @since 3.10.0
   */
  [ParseErrorTypeId] = ParseErrorTypeId;
  get message() {
    return this.toString();
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return TreeFormatter.formatIssueSync(this.issue);
  }
  /**
   * @since 3.10.0
   */
  toJSON() {
    return {
      _id: "ParseError",
      message: this.toString()
    };
  }
  /**
   * @since 3.10.0
   */
  [NodeInspectSymbol]() {
    return this.toJSON();
  }
}, parseError = (issue) => new ParseError({
  issue
}), succeed10 = right2, fail9 = left2;
var isEither3 = isEither2, flatMap11 = /* @__PURE__ */ dual(2, (self, f) => isEither3(self) ? match(self, {
  onLeft: left2,
  onRight: f
}) : flatMap9(self, f)), map19 = /* @__PURE__ */ dual(2, (self, f) => isEither3(self) ? map(self, f) : map16(self, f)), mapError4 = /* @__PURE__ */ dual(2, (self, f) => isEither3(self) ? mapLeft(self, f) : mapError2(self, f));
var mapBoth4 = /* @__PURE__ */ dual(2, (self, options) => isEither3(self) ? mapBoth(self, {
  onLeft: options.onFailure,
  onRight: options.onSuccess
}) : mapBoth3(self, options)), orElse6 = /* @__PURE__ */ dual(2, (self, f) => isEither3(self) ? match(self, {
  onLeft: f,
  onRight: right2
}) : catchAll2(self, f)), mergeInternalOptions = (options, overrideOptions) => overrideOptions === void 0 || isNumber(overrideOptions) ? options : options === void 0 ? overrideOptions : {
  ...options,
  ...overrideOptions
}, getEither = (ast, isDecoding, options) => {
  let parser = goMemo(ast, isDecoding);
  return (u, overrideOptions) => parser(u, mergeInternalOptions(options, overrideOptions));
}, getSync = (ast, isDecoding, options) => {
  let parser = getEither(ast, isDecoding, options);
  return (input2, overrideOptions) => getOrThrowWith(parser(input2, overrideOptions), parseError);
};
var getEffect = (ast, isDecoding, options) => {
  let parser = goMemo(ast, isDecoding);
  return (input2, overrideOptions) => parser(input2, {
    ...mergeInternalOptions(options, overrideOptions),
    isEffectAllowed: !0
  });
}, decodeUnknownSync = (schema, options) => getSync(schema.ast, !0, options);
var decodeUnknownEither = (schema, options) => getEither(schema.ast, !0, options);
var decodeUnknown = (schema, options) => getEffect(schema.ast, !0, options);
var encodeUnknown = (schema, options) => getEffect(schema.ast, !1, options);
var validateSync = (schema, options) => getSync(typeAST(schema.ast), !0, options);
var is = (schema, options) => {
  let parser = goMemo(typeAST(schema.ast), !0);
  return (u, overrideOptions) => isRight2(parser(u, {
    exact: !0,
    ...mergeInternalOptions(options, overrideOptions)
  }));
};
var decodeMemoMap = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/ParseResult/decodeMemoMap"), () => /* @__PURE__ */ new WeakMap()), encodeMemoMap = /* @__PURE__ */ globalValue(/* @__PURE__ */ Symbol.for("effect/ParseResult/encodeMemoMap"), () => /* @__PURE__ */ new WeakMap()), goMemo = (ast, isDecoding) => {
  let memoMap = isDecoding ? decodeMemoMap : encodeMemoMap, memo = memoMap.get(ast);
  if (memo)
    return memo;
  let raw = go(ast, isDecoding), parseOptionsAnnotation = getParseOptionsAnnotation(ast), parserWithOptions = isSome2(parseOptionsAnnotation) ? (i, options) => raw(i, mergeInternalOptions(options, parseOptionsAnnotation.value)) : raw, decodingFallbackAnnotation = getDecodingFallbackAnnotation(ast), parser = isDecoding && isSome2(decodingFallbackAnnotation) ? (i, options) => handleForbidden(orElse6(parserWithOptions(i, options), decodingFallbackAnnotation.value), ast, i, options) : parserWithOptions;
  return memoMap.set(ast, parser), parser;
}, getConcurrency = (ast) => getOrUndefined(getConcurrencyAnnotation(ast)), getBatching = (ast) => getOrUndefined(getBatchingAnnotation(ast)), go = (ast, isDecoding) => {
  switch (ast._tag) {
    case "Refinement":
      if (isDecoding) {
        let from = goMemo(ast.from, !0);
        return (i, options) => {
          options = options ?? defaultParseOption;
          let allErrors = options?.errors === "all", result = flatMap11(orElse6(from(i, options), (ef) => {
            let issue = new Refinement2(ast, i, "From", ef);
            return allErrors && hasStableFilter(ast) && isComposite2(ef) ? match2(ast.filter(i, options, ast), {
              onNone: () => left2(issue),
              onSome: (ep) => left2(new Composite2(ast, i, [issue, new Refinement2(ast, i, "Predicate", ep)]))
            }) : left2(issue);
          }), (a) => match2(ast.filter(a, options, ast), {
            onNone: () => right2(a),
            onSome: (ep) => left2(new Refinement2(ast, i, "Predicate", ep))
          }));
          return handleForbidden(result, ast, i, options);
        };
      } else {
        let from = goMemo(typeAST(ast), !0), to = goMemo(dropRightRefinement(ast.from), !1);
        return (i, options) => handleForbidden(flatMap11(from(i, options), (a) => to(a, options)), ast, i, options);
      }
    case "Transformation": {
      let transform3 = getFinalTransformation(ast.transformation, isDecoding), from = isDecoding ? goMemo(ast.from, !0) : goMemo(ast.to, !1), to = isDecoding ? goMemo(ast.to, !0) : goMemo(ast.from, !1);
      return (i, options) => handleForbidden(flatMap11(mapError4(from(i, options), (e) => new Transformation2(ast, i, isDecoding ? "Encoded" : "Type", e)), (a) => flatMap11(mapError4(transform3(a, options ?? defaultParseOption, ast, i), (e) => new Transformation2(ast, i, "Transformation", e)), (i2) => mapError4(to(i2, options), (e) => new Transformation2(ast, i, isDecoding ? "Type" : "Encoded", e)))), ast, i, options);
    }
    case "Declaration": {
      let parse = isDecoding ? ast.decodeUnknown(...ast.typeParameters) : ast.encodeUnknown(...ast.typeParameters);
      return (i, options) => handleForbidden(parse(i, options ?? defaultParseOption, ast), ast, i, options);
    }
    case "Literal":
      return fromRefinement(ast, (u) => u === ast.literal);
    case "UniqueSymbol":
      return fromRefinement(ast, (u) => u === ast.symbol);
    case "UndefinedKeyword":
      return fromRefinement(ast, isUndefined);
    case "NeverKeyword":
      return fromRefinement(ast, isNever);
    case "UnknownKeyword":
    case "AnyKeyword":
    case "VoidKeyword":
      return right2;
    case "StringKeyword":
      return fromRefinement(ast, isString);
    case "NumberKeyword":
      return fromRefinement(ast, isNumber);
    case "BooleanKeyword":
      return fromRefinement(ast, isBoolean);
    case "BigIntKeyword":
      return fromRefinement(ast, isBigInt);
    case "SymbolKeyword":
      return fromRefinement(ast, isSymbol);
    case "ObjectKeyword":
      return fromRefinement(ast, isObject);
    case "Enums":
      return fromRefinement(ast, (u) => ast.enums.some(([_, value2]) => value2 === u));
    case "TemplateLiteral": {
      if (ast.spans.every((span2) => isStringKeyword(span2.type)))
        return fromRefinement(ast, (u) => {
          if (!isString(u) || !u.startsWith(ast.head))
            return !1;
          let position2 = ast.head.length;
          for (let i = 0; i < ast.spans.length - 1; i++) {
            let literal3 = ast.spans[i].literal, index = u.indexOf(literal3, position2);
            if (index === -1)
              return !1;
            position2 = index + literal3.length;
          }
          let literal2 = ast.spans[ast.spans.length - 1].literal;
          return u.endsWith(literal2) && u.length - literal2.length >= position2;
        });
      let regex = getTemplateLiteralRegExp(ast);
      return fromRefinement(ast, (u) => isString(u) && regex.test(u));
    }
    case "TupleType": {
      let elements = ast.elements.map((e) => goMemo(e.type, isDecoding)), rest = ast.rest.map((annotatedAST) => goMemo(annotatedAST.type, isDecoding)), requiredTypes = ast.elements.filter((e) => !e.isOptional);
      ast.rest.length > 0 && (requiredTypes = requiredTypes.concat(ast.rest.slice(1)));
      let requiredLen = requiredTypes.length, expectedIndexes = ast.elements.length > 0 ? ast.elements.map((_, i) => i).join(" | ") : "never", concurrency = getConcurrency(ast), batching = getBatching(ast);
      return (input2, options) => {
        if (!isArray(input2))
          return left2(new Type2(ast, input2));
        let allErrors = options?.errors === "all", es = [], stepKey = 0, output = [], len = input2.length;
        for (let i2 = len; i2 <= requiredLen - 1; i2++) {
          let e = new Pointer(i2, input2, new Missing(requiredTypes[i2 - len]));
          if (allErrors) {
            es.push([stepKey++, e]);
            continue;
          } else
            return left2(new Composite2(ast, input2, e, output));
        }
        if (ast.rest.length === 0)
          for (let i2 = ast.elements.length; i2 <= len - 1; i2++) {
            let e = new Pointer(i2, input2, new Unexpected(input2[i2], `is unexpected, expected: ${expectedIndexes}`));
            if (allErrors) {
              es.push([stepKey++, e]);
              continue;
            } else
              return left2(new Composite2(ast, input2, e, output));
          }
        let i = 0, queue;
        for (; i < elements.length; i++)
          if (len < i + 1) {
            if (ast.elements[i].isOptional)
              continue;
          } else {
            let parser = elements[i], te = parser(input2[i], options);
            if (isEither3(te)) {
              if (isLeft2(te)) {
                let e = new Pointer(i, input2, te.left);
                if (allErrors) {
                  es.push([stepKey++, e]);
                  continue;
                } else
                  return left2(new Composite2(ast, input2, e, sortByIndex(output)));
              }
              output.push([stepKey++, te.right]);
            } else {
              let nk = stepKey++, index = i;
              queue || (queue = []), queue.push(({
                es: es2,
                output: output2
              }) => flatMap9(either3(te), (t) => {
                if (isLeft2(t)) {
                  let e = new Pointer(index, input2, t.left);
                  return allErrors ? (es2.push([nk, e]), _void) : left2(new Composite2(ast, input2, e, sortByIndex(output2)));
                }
                return output2.push([nk, t.right]), _void;
              }));
            }
          }
        if (isNonEmptyReadonlyArray(rest)) {
          let [head5, ...tail] = rest;
          for (; i < len - tail.length; i++) {
            let te = head5(input2[i], options);
            if (isEither3(te))
              if (isLeft2(te)) {
                let e = new Pointer(i, input2, te.left);
                if (allErrors) {
                  es.push([stepKey++, e]);
                  continue;
                } else
                  return left2(new Composite2(ast, input2, e, sortByIndex(output)));
              } else
                output.push([stepKey++, te.right]);
            else {
              let nk = stepKey++, index = i;
              queue || (queue = []), queue.push(({
                es: es2,
                output: output2
              }) => flatMap9(either3(te), (t) => {
                if (isLeft2(t)) {
                  let e = new Pointer(index, input2, t.left);
                  return allErrors ? (es2.push([nk, e]), _void) : left2(new Composite2(ast, input2, e, sortByIndex(output2)));
                } else
                  return output2.push([nk, t.right]), _void;
              }));
            }
          }
          for (let j = 0; j < tail.length; j++) {
            let index = i + j;
            if (!(len < index + 1)) {
              let te = tail[j](input2[index], options);
              if (isEither3(te)) {
                if (isLeft2(te)) {
                  let e = new Pointer(index, input2, te.left);
                  if (allErrors) {
                    es.push([stepKey++, e]);
                    continue;
                  } else
                    return left2(new Composite2(ast, input2, e, sortByIndex(output)));
                }
                output.push([stepKey++, te.right]);
              } else {
                let nk = stepKey++;
                queue || (queue = []), queue.push(({
                  es: es2,
                  output: output2
                }) => flatMap9(either3(te), (t) => {
                  if (isLeft2(t)) {
                    let e = new Pointer(index, input2, t.left);
                    return allErrors ? (es2.push([nk, e]), _void) : left2(new Composite2(ast, input2, e, sortByIndex(output2)));
                  }
                  return output2.push([nk, t.right]), _void;
                }));
              }
            }
          }
        }
        let computeResult = ({
          es: es2,
          output: output2
        }) => isNonEmptyArray2(es2) ? left2(new Composite2(ast, input2, sortByIndex(es2), sortByIndex(output2))) : right2(sortByIndex(output2));
        if (queue && queue.length > 0) {
          let cqueue = queue;
          return suspend3(() => {
            let state = {
              es: copy(es),
              output: copy(output)
            };
            return flatMap9(forEach7(cqueue, (f) => f(state), {
              concurrency,
              batching,
              discard: !0
            }), () => computeResult(state));
          });
        }
        return computeResult({
          output,
          es
        });
      };
    }
    case "TypeLiteral": {
      if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0)
        return fromRefinement(ast, isNotNullable);
      let propertySignatures = [], expectedKeysMap = {}, expectedKeys = [];
      for (let ps of ast.propertySignatures)
        propertySignatures.push([goMemo(ps.type, isDecoding), ps]), expectedKeysMap[ps.name] = null, expectedKeys.push(ps.name);
      let indexSignatures = ast.indexSignatures.map((is2) => [goMemo(is2.parameter, isDecoding), goMemo(is2.type, isDecoding), is2.parameter]), expectedAST = Union.make(ast.indexSignatures.map((is2) => is2.parameter).concat(expectedKeys.map((key) => isSymbol(key) ? new UniqueSymbol(key) : new Literal(key)))), expected2 = goMemo(expectedAST, isDecoding), concurrency = getConcurrency(ast), batching = getBatching(ast);
      return (input2, options) => {
        if (!isRecord(input2))
          return left2(new Type2(ast, input2));
        let allErrors = options?.errors === "all", es = [], stepKey = 0, onExcessPropertyError = options?.onExcessProperty === "error", onExcessPropertyPreserve = options?.onExcessProperty === "preserve", output = {}, inputKeys;
        if (onExcessPropertyError || onExcessPropertyPreserve) {
          inputKeys = Reflect.ownKeys(input2);
          for (let key of inputKeys) {
            let te = expected2(key, options);
            if (isEither3(te) && isLeft2(te))
              if (onExcessPropertyError) {
                let e = new Pointer(key, input2, new Unexpected(input2[key], `is unexpected, expected: ${String(expectedAST)}`));
                if (allErrors) {
                  es.push([stepKey++, e]);
                  continue;
                } else
                  return left2(new Composite2(ast, input2, e, output));
              } else
                output[key] = input2[key];
          }
        }
        let queue, isExact = options?.exact === !0;
        for (let i = 0; i < propertySignatures.length; i++) {
          let ps = propertySignatures[i][1], name = ps.name, hasKey = Object.prototype.hasOwnProperty.call(input2, name);
          if (!hasKey) {
            if (ps.isOptional)
              continue;
            if (isExact) {
              let e = new Pointer(name, input2, new Missing(ps));
              if (allErrors) {
                es.push([stepKey++, e]);
                continue;
              } else
                return left2(new Composite2(ast, input2, e, output));
            }
          }
          let parser = propertySignatures[i][0], te = parser(input2[name], options);
          if (isEither3(te)) {
            if (isLeft2(te)) {
              let e = new Pointer(name, input2, hasKey ? te.left : new Missing(ps));
              if (allErrors) {
                es.push([stepKey++, e]);
                continue;
              } else
                return left2(new Composite2(ast, input2, e, output));
            }
            output[name] = te.right;
          } else {
            let nk = stepKey++, index = name;
            queue || (queue = []), queue.push(({
              es: es2,
              output: output2
            }) => flatMap9(either3(te), (t) => {
              if (isLeft2(t)) {
                let e = new Pointer(index, input2, hasKey ? t.left : new Missing(ps));
                return allErrors ? (es2.push([nk, e]), _void) : left2(new Composite2(ast, input2, e, output2));
              }
              return output2[index] = t.right, _void;
            }));
          }
        }
        for (let i = 0; i < indexSignatures.length; i++) {
          let indexSignature = indexSignatures[i], parameter = indexSignature[0], type = indexSignature[1], keys7 = getKeysForIndexSignature(input2, indexSignature[2]);
          for (let key of keys7) {
            let keu = parameter(key, options);
            if (isEither3(keu) && isRight2(keu)) {
              let vpr = type(input2[key], options);
              if (isEither3(vpr))
                if (isLeft2(vpr)) {
                  let e = new Pointer(key, input2, vpr.left);
                  if (allErrors) {
                    es.push([stepKey++, e]);
                    continue;
                  } else
                    return left2(new Composite2(ast, input2, e, output));
                } else
                  Object.prototype.hasOwnProperty.call(expectedKeysMap, key) || (output[key] = vpr.right);
              else {
                let nk = stepKey++, index = key;
                queue || (queue = []), queue.push(({
                  es: es2,
                  output: output2
                }) => flatMap9(either3(vpr), (tv) => {
                  if (isLeft2(tv)) {
                    let e = new Pointer(index, input2, tv.left);
                    return allErrors ? (es2.push([nk, e]), _void) : left2(new Composite2(ast, input2, e, output2));
                  } else
                    return Object.prototype.hasOwnProperty.call(expectedKeysMap, key) || (output2[key] = tv.right), _void;
                }));
              }
            }
          }
        }
        let computeResult = ({
          es: es2,
          output: output2
        }) => {
          if (isNonEmptyArray2(es2))
            return left2(new Composite2(ast, input2, sortByIndex(es2), output2));
          if (options?.propertyOrder === "original") {
            let keys7 = inputKeys || Reflect.ownKeys(input2);
            for (let name of expectedKeys)
              keys7.indexOf(name) === -1 && keys7.push(name);
            let out = {};
            for (let key of keys7)
              Object.prototype.hasOwnProperty.call(output2, key) && (out[key] = output2[key]);
            return right2(out);
          }
          return right2(output2);
        };
        if (queue && queue.length > 0) {
          let cqueue = queue;
          return suspend3(() => {
            let state = {
              es: copy(es),
              output: Object.assign({}, output)
            };
            return flatMap9(forEach7(cqueue, (f) => f(state), {
              concurrency,
              batching,
              discard: !0
            }), () => computeResult(state));
          });
        }
        return computeResult({
          es,
          output
        });
      };
    }
    case "Union": {
      let searchTree = getSearchTree(ast.types, isDecoding), ownKeys = Reflect.ownKeys(searchTree.keys), ownKeysLen = ownKeys.length, astTypesLen = ast.types.length, map24 = /* @__PURE__ */ new Map();
      for (let i = 0; i < astTypesLen; i++)
        map24.set(ast.types[i], goMemo(ast.types[i], isDecoding));
      let concurrency = getConcurrency(ast) ?? 1, batching = getBatching(ast);
      return (input2, options) => {
        let es = [], stepKey = 0, candidates = [];
        if (ownKeysLen > 0)
          if (isRecordOrArray(input2))
            for (let i = 0; i < ownKeysLen; i++) {
              let name = ownKeys[i], buckets = searchTree.keys[name].buckets;
              if (Object.prototype.hasOwnProperty.call(input2, name)) {
                let literal2 = String(input2[name]);
                if (Object.prototype.hasOwnProperty.call(buckets, literal2))
                  candidates = candidates.concat(buckets[literal2]);
                else {
                  let {
                    candidates: candidates2,
                    literals
                  } = searchTree.keys[name], literalsUnion = Union.make(literals), errorAst = candidates2.length === astTypesLen ? new TypeLiteral([new PropertySignature(name, literalsUnion, !1, !0)], []) : Union.make(candidates2);
                  es.push([stepKey++, new Composite2(errorAst, input2, new Pointer(name, input2, new Type2(literalsUnion, input2[name])))]);
                }
              } else {
                let {
                  candidates: candidates2,
                  literals
                } = searchTree.keys[name], fakePropertySignature = new PropertySignature(name, Union.make(literals), !1, !0), errorAst = candidates2.length === astTypesLen ? new TypeLiteral([fakePropertySignature], []) : Union.make(candidates2);
                es.push([stepKey++, new Composite2(errorAst, input2, new Pointer(name, input2, new Missing(fakePropertySignature)))]);
              }
            }
          else {
            let errorAst = searchTree.candidates.length === astTypesLen ? ast : Union.make(searchTree.candidates);
            es.push([stepKey++, new Type2(errorAst, input2)]);
          }
        searchTree.otherwise.length > 0 && (candidates = candidates.concat(searchTree.otherwise));
        let queue;
        for (let i = 0; i < candidates.length; i++) {
          let candidate = candidates[i], pr = map24.get(candidate)(input2, options);
          if (isEither3(pr) && (!queue || queue.length === 0)) {
            if (isRight2(pr))
              return pr;
            es.push([stepKey++, pr.left]);
          } else {
            let nk = stepKey++;
            queue || (queue = []), queue.push((state) => suspend3(() => "finalResult" in state ? _void : flatMap9(either3(pr), (t) => (isRight2(t) ? state.finalResult = t : state.es.push([nk, t.left]), _void))));
          }
        }
        let computeResult = (es2) => isNonEmptyArray2(es2) ? es2.length === 1 && es2[0][1]._tag === "Type" ? left2(es2[0][1]) : left2(new Composite2(ast, input2, sortByIndex(es2))) : (
          // this should never happen
          left2(new Type2(ast, input2))
        );
        if (queue && queue.length > 0) {
          let cqueue = queue;
          return suspend3(() => {
            let state = {
              es: copy(es)
            };
            return flatMap9(forEach7(cqueue, (f) => f(state), {
              concurrency,
              batching,
              discard: !0
            }), () => "finalResult" in state ? state.finalResult : computeResult(state.es));
          });
        }
        return computeResult(es);
      };
    }
    case "Suspend": {
      let get12 = memoizeThunk(() => goMemo(ast.f(), isDecoding));
      return (a, options) => get12()(a, options);
    }
  }
}, fromRefinement = (ast, refinement) => (u) => refinement(u) ? right2(u) : left2(new Type2(ast, u)), getLiterals = (ast, isDecoding) => {
  switch (ast._tag) {
    case "Declaration": {
      let annotation = getSurrogateAnnotation(ast);
      if (isSome2(annotation))
        return getLiterals(annotation.value, isDecoding);
      break;
    }
    case "TypeLiteral": {
      let out = [];
      for (let i = 0; i < ast.propertySignatures.length; i++) {
        let propertySignature2 = ast.propertySignatures[i], type = isDecoding ? encodedAST(propertySignature2.type) : typeAST(propertySignature2.type);
        isLiteral(type) && !propertySignature2.isOptional && out.push([propertySignature2.name, type]);
      }
      return out;
    }
    case "TupleType": {
      let out = [];
      for (let i = 0; i < ast.elements.length; i++) {
        let element = ast.elements[i], type = isDecoding ? encodedAST(element.type) : typeAST(element.type);
        isLiteral(type) && !element.isOptional && out.push([i, type]);
      }
      return out;
    }
    case "Refinement":
      return getLiterals(ast.from, isDecoding);
    case "Suspend":
      return getLiterals(ast.f(), isDecoding);
    case "Transformation":
      return getLiterals(isDecoding ? ast.from : ast.to, isDecoding);
  }
  return [];
}, getSearchTree = (members, isDecoding) => {
  let keys7 = {}, otherwise = [], candidates = [];
  for (let i = 0; i < members.length; i++) {
    let member = members[i], tags = getLiterals(member, isDecoding);
    if (tags.length > 0) {
      candidates.push(member);
      for (let j = 0; j < tags.length; j++) {
        let [key, literal2] = tags[j], hash2 = String(literal2.literal);
        keys7[key] = keys7[key] || {
          buckets: {},
          literals: [],
          candidates: []
        };
        let buckets = keys7[key].buckets;
        if (Object.prototype.hasOwnProperty.call(buckets, hash2)) {
          if (j < tags.length - 1)
            continue;
          buckets[hash2].push(member), keys7[key].literals.push(literal2), keys7[key].candidates.push(member);
        } else {
          buckets[hash2] = [member], keys7[key].literals.push(literal2), keys7[key].candidates.push(member);
          break;
        }
      }
    } else
      otherwise.push(member);
  }
  return {
    keys: keys7,
    otherwise,
    candidates
  };
}, dropRightRefinement = (ast) => isRefinement(ast) ? dropRightRefinement(ast.from) : ast, handleForbidden = (effect3, ast, actual, options) => {
  if (options?.isEffectAllowed === !0 || isEither3(effect3))
    return effect3;
  let scheduler = new SyncScheduler(), fiber = runFork2(effect3, {
    scheduler
  });
  scheduler.flush();
  let exit4 = fiber.unsafePoll();
  if (exit4) {
    if (isSuccess(exit4))
      return right2(exit4.value);
    let cause2 = exit4.cause;
    return isFailType2(cause2) ? left2(cause2.error) : left2(new Forbidden(ast, actual, pretty2(cause2)));
  }
  return left2(new Forbidden(ast, actual, "cannot be be resolved synchronously, this is caused by using runSync on an effect that performs async work"));
}, compare = ([a], [b]) => a > b ? 1 : a < b ? -1 : 0;
function sortByIndex(es) {
  return es.sort(compare).map((t) => t[1]);
}
var getFinalTransformation = (transformation, isDecoding) => {
  switch (transformation._tag) {
    case "FinalTransformation":
      return isDecoding ? transformation.decode : transformation.encode;
    case "ComposeTransformation":
      return right2;
    case "TypeLiteralTransformation":
      return (input2) => {
        let out = right2(input2);
        for (let pst of transformation.propertySignatureTransformations) {
          let [from, to] = isDecoding ? [pst.from, pst.to] : [pst.to, pst.from], transformation2 = isDecoding ? pst.decode : pst.encode;
          out = map19(out, (input3) => {
            let o = transformation2(Object.prototype.hasOwnProperty.call(input3, from) ? some2(input3[from]) : none2());
            return delete input3[from], isSome2(o) && (input3[to] = o.value), input3;
          });
        }
        return out;
      };
  }
}, makeTree = (value2, forest = []) => ({
  value: value2,
  forest
}), TreeFormatter = {
  formatIssue: (issue) => map19(formatTree(issue), drawTree),
  formatIssueSync: (issue) => {
    let e = TreeFormatter.formatIssue(issue);
    return isEither3(e) ? getOrThrow(e) : runSync(e);
  },
  formatError: (error) => TreeFormatter.formatIssue(error.issue),
  formatErrorSync: (error) => TreeFormatter.formatIssueSync(error.issue)
}, drawTree = (tree) => tree.value + draw(`
`, tree.forest), draw = (indentation, forest) => {
  let r = "", len = forest.length, tree;
  for (let i = 0; i < len; i++) {
    tree = forest[i];
    let isLast = i === len - 1;
    r += indentation + (isLast ? "\u2514" : "\u251C") + "\u2500 " + tree.value, r += draw(indentation + (len > 1 && !isLast ? "\u2502  " : "   "), tree.forest);
  }
  return r;
}, formatTransformationKind = (kind) => {
  switch (kind) {
    case "Encoded":
      return "Encoded side transformation failure";
    case "Transformation":
      return "Transformation process failure";
    case "Type":
      return "Type side transformation failure";
  }
}, formatRefinementKind = (kind) => {
  switch (kind) {
    case "From":
      return "From side refinement failure";
    case "Predicate":
      return "Predicate refinement failure";
  }
}, getAnnotated = (issue) => "ast" in issue ? some2(issue.ast) : none2(), Either_void = /* @__PURE__ */ right2(void 0), getCurrentMessage = (issue) => getAnnotated(issue).pipe(flatMap(getMessageAnnotation), match2({
  onNone: () => Either_void,
  onSome: (messageAnnotation) => {
    let union9 = messageAnnotation(issue);
    return isString(union9) ? right2({
      message: union9,
      override: !1
    }) : isEffect2(union9) ? map16(union9, (message2) => ({
      message: message2,
      override: !1
    })) : isString(union9.message) ? right2({
      message: union9.message,
      override: union9.override
    }) : map16(union9.message, (message2) => ({
      message: message2,
      override: union9.override
    }));
  }
})), createParseIssueGuard = (tag2) => (issue) => issue._tag === tag2, isComposite2 = /* @__PURE__ */ createParseIssueGuard("Composite"), isRefinement2 = /* @__PURE__ */ createParseIssueGuard("Refinement"), isTransformation2 = /* @__PURE__ */ createParseIssueGuard("Transformation"), getMessage = (issue) => flatMap11(getCurrentMessage(issue), (currentMessage) => currentMessage !== void 0 ? !currentMessage.override && (isComposite2(issue) || isRefinement2(issue) && issue.kind === "From" || isTransformation2(issue) && issue.kind !== "Transformation") ? isTransformation2(issue) || isRefinement2(issue) ? getMessage(issue.issue) : Either_void : right2(currentMessage.message) : Either_void), getParseIssueTitleAnnotation2 = (issue) => getAnnotated(issue).pipe(flatMap(getParseIssueTitleAnnotation), flatMapNullable((annotation) => annotation(issue)), getOrUndefined);
function getRefinementExpected(ast) {
  return getDescriptionAnnotation(ast).pipe(orElse(() => getTitleAnnotation(ast)), orElse(() => getAutoTitleAnnotation(ast)), orElse(() => getIdentifierAnnotation(ast)), getOrElse(() => `{ ${ast.from} | filter }`));
}
function getDefaultTypeMessage(issue) {
  return issue.message !== void 0 ? issue.message : `Expected ${isRefinement(issue.ast) ? getRefinementExpected(issue.ast) : String(issue.ast)}, actual ${formatUnknown(issue.actual)}`;
}
var formatTypeMessage = (issue) => map19(getMessage(issue), (message2) => message2 ?? getParseIssueTitleAnnotation2(issue) ?? getDefaultTypeMessage(issue)), getParseIssueTitle = (issue) => getParseIssueTitleAnnotation2(issue) ?? String(issue.ast), formatForbiddenMessage = (issue) => issue.message ?? "is forbidden", formatUnexpectedMessage = (issue) => issue.message ?? "is unexpected", formatMissingMessage = (issue) => {
  let missingMessageAnnotation = getMissingMessageAnnotation(issue.ast);
  if (isSome2(missingMessageAnnotation)) {
    let annotation = missingMessageAnnotation.value();
    return isString(annotation) ? right2(annotation) : annotation;
  }
  return right2(issue.message ?? "is missing");
}, formatTree = (issue) => {
  switch (issue._tag) {
    case "Type":
      return map19(formatTypeMessage(issue), makeTree);
    case "Forbidden":
      return right2(makeTree(getParseIssueTitle(issue), [makeTree(formatForbiddenMessage(issue))]));
    case "Unexpected":
      return right2(makeTree(formatUnexpectedMessage(issue)));
    case "Missing":
      return map19(formatMissingMessage(issue), makeTree);
    case "Transformation":
      return flatMap11(getMessage(issue), (message2) => message2 !== void 0 ? right2(makeTree(message2)) : map19(formatTree(issue.issue), (tree) => makeTree(getParseIssueTitle(issue), [makeTree(formatTransformationKind(issue.kind), [tree])])));
    case "Refinement":
      return flatMap11(getMessage(issue), (message2) => message2 !== void 0 ? right2(makeTree(message2)) : map19(formatTree(issue.issue), (tree) => makeTree(getParseIssueTitle(issue), [makeTree(formatRefinementKind(issue.kind), [tree])])));
    case "Pointer":
      return map19(formatTree(issue.issue), (tree) => makeTree(formatPath(issue.path), [tree]));
    case "Composite":
      return flatMap11(getMessage(issue), (message2) => {
        if (message2 !== void 0)
          return right2(makeTree(message2));
        let parseIssueTitle = getParseIssueTitle(issue);
        return isNonEmpty5(issue.issues) ? map19(forEach7(issue.issues, formatTree), (forest) => makeTree(parseIssueTitle, forest)) : map19(formatTree(issue.issues), (tree) => makeTree(parseIssueTitle, [tree]));
      });
  }
}, makeArrayFormatterIssue = (_tag, path, message2) => ({
  _tag,
  path,
  message: message2
}), ArrayFormatter = {
  formatIssue: (issue) => getArrayFormatterIssues(issue, void 0, []),
  formatIssueSync: (issue) => {
    let e = ArrayFormatter.formatIssue(issue);
    return isEither3(e) ? getOrThrow(e) : runSync(e);
  },
  formatError: (error) => ArrayFormatter.formatIssue(error.issue),
  formatErrorSync: (error) => ArrayFormatter.formatIssueSync(error.issue)
}, getArrayFormatterIssues = (issue, parentTag, path) => {
  let _tag = issue._tag;
  switch (_tag) {
    case "Type":
      return map19(formatTypeMessage(issue), (message2) => [makeArrayFormatterIssue(parentTag ?? _tag, path, message2)]);
    case "Forbidden":
      return right2([makeArrayFormatterIssue(_tag, path, formatForbiddenMessage(issue))]);
    case "Unexpected":
      return right2([makeArrayFormatterIssue(_tag, path, formatUnexpectedMessage(issue))]);
    case "Missing":
      return map19(formatMissingMessage(issue), (message2) => [makeArrayFormatterIssue(_tag, path, message2)]);
    case "Pointer":
      return getArrayFormatterIssues(issue.issue, void 0, path.concat(issue.path));
    case "Composite":
      return flatMap11(getMessage(issue), (message2) => message2 !== void 0 ? right2([makeArrayFormatterIssue(_tag, path, message2)]) : isNonEmpty5(issue.issues) ? map19(forEach7(issue.issues, (issue2) => getArrayFormatterIssues(issue2, void 0, path)), flatten) : getArrayFormatterIssues(issue.issues, void 0, path));
    case "Refinement":
      return flatMap11(getMessage(issue), (message2) => message2 !== void 0 ? right2([makeArrayFormatterIssue(_tag, path, message2)]) : getArrayFormatterIssues(issue.issue, issue.kind === "Predicate" ? _tag : void 0, path));
    case "Transformation":
      return flatMap11(getMessage(issue), (message2) => message2 !== void 0 ? right2([makeArrayFormatterIssue(_tag, path, message2)]) : getArrayFormatterIssues(issue.issue, issue.kind === "Transformation" ? _tag : void 0, path));
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Struct.js
var pick2 = /* @__PURE__ */ dual((args2) => isObject(args2[0]), (s, ...keys7) => {
  let out = {};
  for (let k of keys7)
    k in s && (out[k] = s[k]);
  return out;
}), omit2 = /* @__PURE__ */ dual((args2) => isObject(args2[0]), (s, ...keys7) => {
  let out = {
    ...s
  };
  for (let k of keys7)
    delete out[k];
  return out;
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Schema.js
var TypeId16 = /* @__PURE__ */ Symbol.for("effect/Schema");
function make39(ast) {
  return class {
    [TypeId16] = variance5;
    static ast = ast;
    static annotations(annotations2) {
      return make39(mergeSchemaAnnotations(this.ast, annotations2));
    }
    static pipe() {
      return pipeArguments(this, arguments);
    }
    static toString() {
      return String(ast);
    }
    static Type;
    static Encoded;
    static Context;
    static [TypeId16] = variance5;
  };
}
var variance5 = {
  /* c8 ignore next */
  _A: (_) => _,
  /* c8 ignore next */
  _I: (_) => _,
  /* c8 ignore next */
  _R: (_) => _
};
var builtInAnnotations = {
  typeConstructor: TypeConstructorAnnotationId,
  schemaId: SchemaIdAnnotationId,
  message: MessageAnnotationId,
  missingMessage: MissingMessageAnnotationId,
  identifier: IdentifierAnnotationId,
  title: TitleAnnotationId,
  description: DescriptionAnnotationId,
  examples: ExamplesAnnotationId,
  default: DefaultAnnotationId,
  documentation: DocumentationAnnotationId,
  jsonSchema: JSONSchemaAnnotationId,
  arbitrary: ArbitraryAnnotationId,
  pretty: PrettyAnnotationId,
  equivalence: EquivalenceAnnotationId,
  concurrency: ConcurrencyAnnotationId,
  batching: BatchingAnnotationId,
  parseIssueTitle: ParseIssueTitleAnnotationId,
  parseOptions: ParseOptionsAnnotationId,
  decodingFallback: DecodingFallbackAnnotationId
}, toASTAnnotations = (annotations2) => {
  if (!annotations2)
    return {};
  let out = {
    ...annotations2
  };
  for (let key in builtInAnnotations)
    if (key in annotations2) {
      let id2 = builtInAnnotations[key];
      out[id2] = annotations2[key], delete out[key];
    }
  return out;
}, mergeSchemaAnnotations = (ast, annotations2) => annotations(ast, toASTAnnotations(annotations2));
var encodedSchema = (schema) => make39(encodedAST(schema.ast));
var typeSchema = (schema) => make39(typeAST(schema.ast)), encodeUnknown2 = (schema, options) => {
  let encodeUnknown3 = encodeUnknown(schema, options);
  return (u, overrideOptions) => mapError4(encodeUnknown3(u, overrideOptions), parseError);
};
var encode = encodeUnknown2;
var decodeUnknownEither2 = (schema, options) => {
  let decodeUnknownEither3 = decodeUnknownEither(schema, options);
  return (u, overrideOptions) => mapLeft(decodeUnknownEither3(u, overrideOptions), parseError);
};
var isSchema = (u) => hasProperty(u, TypeId16) && isObject(u[TypeId16]);
function getDefaultLiteralAST(literals) {
  return isMembers(literals) ? Union.make(mapMembers(literals, (literal2) => new Literal(literal2))) : new Literal(literals[0]);
}
function makeLiteralClass(literals, ast = getDefaultLiteralAST(literals)) {
  return class extends make39(ast) {
    static annotations(annotations2) {
      return makeLiteralClass(this.literals, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static literals = [...literals];
  };
}
function Literal2(...literals) {
  return isNonEmptyReadonlyArray(literals) ? makeLiteralClass(literals) : Never;
}
var declareConstructor = (typeParameters, options, annotations2) => makeDeclareClass(typeParameters, new Declaration(typeParameters.map((tp) => tp.ast), (...typeParameters2) => options.decode(...typeParameters2.map(make39)), (...typeParameters2) => options.encode(...typeParameters2.map(make39)), toASTAnnotations(annotations2))), declarePrimitive = (is2, annotations2) => {
  let decodeUnknown2 = () => (input2, _, ast) => is2(input2) ? succeed10(input2) : fail9(new Type2(ast, input2)), encodeUnknown3 = decodeUnknown2;
  return makeDeclareClass([], new Declaration([], decodeUnknown2, encodeUnknown3, toASTAnnotations(annotations2)));
};
function makeDeclareClass(typeParameters, ast) {
  return class extends make39(ast) {
    static annotations(annotations2) {
      return makeDeclareClass(this.typeParameters, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static typeParameters = [...typeParameters];
  };
}
var declare = function() {
  if (Array.isArray(arguments[0])) {
    let typeParameters = arguments[0], options = arguments[1], annotations3 = arguments[2];
    return declareConstructor(typeParameters, options, annotations3);
  }
  let is2 = arguments[0], annotations2 = arguments[1];
  return declarePrimitive(is2, annotations2);
};
var Undefined = class extends (/* @__PURE__ */ make39(undefinedKeyword)) {
};
var Null = class extends (/* @__PURE__ */ make39($null)) {
}, Never = class extends (/* @__PURE__ */ make39(neverKeyword)) {
}, Unknown = class extends (/* @__PURE__ */ make39(unknownKeyword)) {
};
var String$ = class extends (/* @__PURE__ */ make39(stringKeyword)) {
}, Number$ = class extends (/* @__PURE__ */ make39(numberKeyword)) {
}, Boolean$ = class extends (/* @__PURE__ */ make39(booleanKeyword)) {
};
var getDefaultUnionAST = (members) => Union.make(members.map((m) => m.ast));
function makeUnionClass(members, ast = getDefaultUnionAST(members)) {
  return class extends make39(ast) {
    static annotations(annotations2) {
      return makeUnionClass(this.members, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static members = [...members];
  };
}
function Union2(...members) {
  return isMembers(members) ? makeUnionClass(members) : isNonEmptyReadonlyArray(members) ? members[0] : Never;
}
var NullOr = (self) => Union2(self, Null), UndefinedOr = (self) => Union2(self, Undefined), NullishOr = (self) => Union2(self, Null, Undefined);
var ElementImpl = class _ElementImpl {
  ast;
  from;
  [TypeId16];
  _Token;
  constructor(ast, from) {
    this.ast = ast, this.from = from;
  }
  annotations(annotations2) {
    return new _ElementImpl(new OptionalType(this.ast.type, this.ast.isOptional, {
      ...this.ast.annotations,
      ...toASTAnnotations(annotations2)
    }), this.from);
  }
  toString() {
    return `${this.ast.type}${this.ast.isOptional ? "?" : ""}`;
  }
}, getDefaultTupleTypeAST = (elements, rest) => new TupleType(elements.map((el) => isSchema(el) ? new OptionalType(el.ast, !1) : el.ast), rest.map((el) => isSchema(el) ? new Type(el.ast) : el.ast), !0);
function makeTupleTypeClass(elements, rest, ast = getDefaultTupleTypeAST(elements, rest)) {
  return class extends make39(ast) {
    static annotations(annotations2) {
      return makeTupleTypeClass(this.elements, this.rest, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static elements = [...elements];
    static rest = [...rest];
  };
}
function makeArrayClass(value2, ast) {
  return class extends makeTupleTypeClass([], [value2], ast) {
    static annotations(annotations2) {
      return makeArrayClass(this.value, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static value = value2;
  };
}
var Array$ = (value2) => makeArrayClass(value2);
var formatPropertySignatureToken = (isOptional) => isOptional ? '"?:"' : '":"', PropertySignatureDeclaration = class extends OptionalType {
  isReadonly;
  defaultValue;
  /**
   * @since 3.10.0
   */
  _tag = "PropertySignatureDeclaration";
  constructor(type, isOptional, isReadonly, annotations2, defaultValue) {
    super(type, isOptional, annotations2), this.isReadonly = isReadonly, this.defaultValue = defaultValue;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    let token = formatPropertySignatureToken(this.isOptional), type = String(this.type);
    return `PropertySignature<${token}, ${type}, never, ${token}, ${type}>`;
  }
}, FromPropertySignature = class extends OptionalType {
  isReadonly;
  fromKey;
  constructor(type, isOptional, isReadonly, annotations2, fromKey) {
    super(type, isOptional, annotations2), this.isReadonly = isReadonly, this.fromKey = fromKey;
  }
}, ToPropertySignature = class extends OptionalType {
  isReadonly;
  defaultValue;
  constructor(type, isOptional, isReadonly, annotations2, defaultValue) {
    super(type, isOptional, annotations2), this.isReadonly = isReadonly, this.defaultValue = defaultValue;
  }
}, formatPropertyKey2 = (p) => p === void 0 ? "never" : isString(p) ? JSON.stringify(p) : String(p), PropertySignatureTransformation2 = class {
  from;
  to;
  decode;
  encode;
  /**
   * @since 3.10.0
   */
  _tag = "PropertySignatureTransformation";
  constructor(from, to, decode3, encode3) {
    this.from = from, this.to = to, this.decode = decode3, this.encode = encode3;
  }
  /**
   * @since 3.10.0
   */
  toString() {
    return `PropertySignature<${formatPropertySignatureToken(this.to.isOptional)}, ${this.to.type}, ${formatPropertyKey2(this.from.fromKey)}, ${formatPropertySignatureToken(this.from.isOptional)}, ${this.from.type}>`;
  }
}, mergeSignatureAnnotations = (ast, annotations2) => {
  switch (ast._tag) {
    case "PropertySignatureDeclaration":
      return new PropertySignatureDeclaration(ast.type, ast.isOptional, ast.isReadonly, {
        ...ast.annotations,
        ...annotations2
      }, ast.defaultValue);
    case "PropertySignatureTransformation":
      return new PropertySignatureTransformation2(ast.from, new ToPropertySignature(ast.to.type, ast.to.isOptional, ast.to.isReadonly, {
        ...ast.to.annotations,
        ...annotations2
      }, ast.to.defaultValue), ast.decode, ast.encode);
  }
}, PropertySignatureTypeId = /* @__PURE__ */ Symbol.for("effect/PropertySignature"), isPropertySignature = (u) => hasProperty(u, PropertySignatureTypeId), PropertySignatureImpl = class _PropertySignatureImpl {
  ast;
  [TypeId16];
  [PropertySignatureTypeId] = null;
  _TypeToken;
  _Key;
  _EncodedToken;
  _HasDefault;
  constructor(ast) {
    this.ast = ast;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
  annotations(annotations2) {
    return new _PropertySignatureImpl(mergeSignatureAnnotations(this.ast, toASTAnnotations(annotations2)));
  }
  toString() {
    return String(this.ast);
  }
}, makePropertySignature = (ast) => new PropertySignatureImpl(ast), PropertySignatureWithFromImpl = class _PropertySignatureWithFromImpl extends PropertySignatureImpl {
  from;
  constructor(ast, from) {
    super(ast), this.from = from;
  }
  annotations(annotations2) {
    return new _PropertySignatureWithFromImpl(mergeSignatureAnnotations(this.ast, toASTAnnotations(annotations2)), this.from);
  }
}, propertySignature = (self) => new PropertySignatureWithFromImpl(new PropertySignatureDeclaration(self.ast, !1, !0, {}, void 0), self), withConstructorDefault = /* @__PURE__ */ dual(2, (self, defaultValue) => {
  let ast = self.ast;
  switch (ast._tag) {
    case "PropertySignatureDeclaration":
      return makePropertySignature(new PropertySignatureDeclaration(ast.type, ast.isOptional, ast.isReadonly, ast.annotations, defaultValue));
    case "PropertySignatureTransformation":
      return makePropertySignature(new PropertySignatureTransformation2(ast.from, new ToPropertySignature(ast.to.type, ast.to.isOptional, ast.to.isReadonly, ast.to.annotations, defaultValue), ast.decode, ast.encode));
  }
});
var optionalToRequired = (from, to, options) => makePropertySignature(new PropertySignatureTransformation2(new FromPropertySignature(from.ast, !0, !0, {}, void 0), new ToPropertySignature(to.ast, !1, !0, {}, void 0), (o) => some2(options.decode(o)), flatMap(options.encode)));
var optionalToOptional = (from, to, options) => makePropertySignature(new PropertySignatureTransformation2(new FromPropertySignature(from.ast, !0, !0, {}, void 0), new ToPropertySignature(to.ast, !0, !0, {}, void 0), options.decode, options.encode)), optionalPropertySignatureAST = (self, options) => {
  let isExact = options?.exact, defaultValue = options?.default, isNullable2 = options?.nullable, asOption = options?.as == "Option", asOptionEncode = options?.onNoneEncoding ? orElse(options.onNoneEncoding) : identity;
  if (isExact) {
    if (defaultValue)
      return isNullable2 ? withConstructorDefault(optionalToRequired(NullOr(self), typeSchema(self), {
        decode: match2({
          onNone: defaultValue,
          onSome: (a) => a === null ? defaultValue() : a
        }),
        encode: some2
      }), defaultValue).ast : withConstructorDefault(optionalToRequired(self, typeSchema(self), {
        decode: match2({
          onNone: defaultValue,
          onSome: identity
        }),
        encode: some2
      }), defaultValue).ast;
    if (asOption) {
      let to = OptionFromSelf_(typeSchema(self));
      return isNullable2 ? optionalToRequired(NullOr(self), to, {
        decode: filter(isNotNull),
        encode: asOptionEncode
      }).ast : optionalToRequired(self, to, {
        decode: identity,
        encode: identity
      }).ast;
    } else
      return isNullable2 ? optionalToOptional(NullOr(self), typeSchema(self), {
        decode: filter(isNotNull),
        encode: identity
      }).ast : new PropertySignatureDeclaration(self.ast, !0, !0, {}, void 0);
  } else {
    if (defaultValue)
      return isNullable2 ? withConstructorDefault(optionalToRequired(NullishOr(self), typeSchema(self), {
        decode: match2({
          onNone: defaultValue,
          onSome: (a) => a ?? defaultValue()
        }),
        encode: some2
      }), defaultValue).ast : withConstructorDefault(optionalToRequired(UndefinedOr(self), typeSchema(self), {
        decode: match2({
          onNone: defaultValue,
          onSome: (a) => a === void 0 ? defaultValue() : a
        }),
        encode: some2
      }), defaultValue).ast;
    if (asOption) {
      let to = OptionFromSelf_(typeSchema(self));
      return isNullable2 ? optionalToRequired(NullishOr(self), to, {
        decode: filter((a) => a != null),
        encode: asOptionEncode
      }).ast : optionalToRequired(UndefinedOr(self), to, {
        decode: filter(isNotUndefined),
        encode: asOptionEncode
      }).ast;
    } else
      return isNullable2 ? optionalToOptional(NullishOr(self), UndefinedOr(typeSchema(self)), {
        decode: filter(isNotNull),
        encode: identity
      }).ast : new PropertySignatureDeclaration(UndefinedOr(self).ast, !0, !0, {}, void 0);
  }
}, optional = (self) => {
  let ast = self.ast === undefinedKeyword || self.ast === neverKeyword ? undefinedKeyword : UndefinedOr(self).ast;
  return new PropertySignatureWithFromImpl(new PropertySignatureDeclaration(ast, !0, !0, {}, void 0), self);
}, optionalWith = /* @__PURE__ */ dual((args2) => isSchema(args2[0]), (self, options) => new PropertySignatureWithFromImpl(optionalPropertySignatureAST(self, options), self)), preserveMissingMessageAnnotation = /* @__PURE__ */ pickAnnotations([MissingMessageAnnotationId]), getDefaultTypeLiteralAST = (fields, records) => {
  let ownKeys = Reflect.ownKeys(fields), pss = [];
  if (ownKeys.length > 0) {
    let from = [], to = [], transformations = [];
    for (let i = 0; i < ownKeys.length; i++) {
      let key = ownKeys[i], field = fields[key];
      if (isPropertySignature(field)) {
        let ast = field.ast;
        switch (ast._tag) {
          case "PropertySignatureDeclaration": {
            let type = ast.type, isOptional = ast.isOptional, toAnnotations = ast.annotations;
            from.push(new PropertySignature(key, type, isOptional, !0, preserveMissingMessageAnnotation(ast))), to.push(new PropertySignature(key, typeAST(type), isOptional, !0, toAnnotations)), pss.push(new PropertySignature(key, type, isOptional, !0, toAnnotations));
            break;
          }
          case "PropertySignatureTransformation": {
            let fromKey = ast.from.fromKey ?? key;
            from.push(new PropertySignature(fromKey, ast.from.type, ast.from.isOptional, !0, ast.from.annotations)), to.push(new PropertySignature(key, ast.to.type, ast.to.isOptional, !0, ast.to.annotations)), transformations.push(new PropertySignatureTransformation(fromKey, key, ast.decode, ast.encode));
            break;
          }
        }
      } else
        from.push(new PropertySignature(key, field.ast, !1, !0)), to.push(new PropertySignature(key, typeAST(field.ast), !1, !0)), pss.push(new PropertySignature(key, field.ast, !1, !0));
    }
    if (isNonEmptyReadonlyArray(transformations)) {
      let issFrom = [], issTo = [];
      for (let r of records) {
        let {
          indexSignatures,
          propertySignatures
        } = record(r.key.ast, r.value.ast);
        propertySignatures.forEach((ps) => {
          from.push(ps), to.push(new PropertySignature(ps.name, typeAST(ps.type), ps.isOptional, ps.isReadonly, ps.annotations));
        }), indexSignatures.forEach((is2) => {
          issFrom.push(is2), issTo.push(new IndexSignature(is2.parameter, typeAST(is2.type), is2.isReadonly));
        });
      }
      return new Transformation(new TypeLiteral(from, issFrom, {
        [AutoTitleAnnotationId]: "Struct (Encoded side)"
      }), new TypeLiteral(to, issTo, {
        [AutoTitleAnnotationId]: "Struct (Type side)"
      }), new TypeLiteralTransformation(transformations));
    }
  }
  let iss = [];
  for (let r of records) {
    let {
      indexSignatures,
      propertySignatures
    } = record(r.key.ast, r.value.ast);
    propertySignatures.forEach((ps) => pss.push(ps)), indexSignatures.forEach((is2) => iss.push(is2));
  }
  return new TypeLiteral(pss, iss);
}, lazilyMergeDefaults = (fields, out) => {
  let ownKeys = Reflect.ownKeys(fields);
  for (let key of ownKeys) {
    let field = fields[key];
    if (out[key] === void 0 && isPropertySignature(field)) {
      let ast = field.ast, defaultValue = ast._tag === "PropertySignatureDeclaration" ? ast.defaultValue : ast.to.defaultValue;
      defaultValue !== void 0 && (out[key] = defaultValue());
    }
  }
  return out;
};
function makeTypeLiteralClass(fields, records, ast = getDefaultTypeLiteralAST(fields, records)) {
  return class extends make39(ast) {
    static annotations(annotations2) {
      return makeTypeLiteralClass(this.fields, this.records, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static fields = {
      ...fields
    };
    static records = [...records];
    static make = (props, options) => {
      let propsWithDefaults = lazilyMergeDefaults(fields, {
        ...props
      });
      return getDisableValidationMakeOption(options) ? propsWithDefaults : validateSync(this)(propsWithDefaults);
    };
    static pick(...keys7) {
      return Struct(pick2(fields, ...keys7));
    }
    static omit(...keys7) {
      return Struct(omit2(fields, ...keys7));
    }
  };
}
function Struct(fields, ...records) {
  return makeTypeLiteralClass(fields, records);
}
function makeRecordClass(key, value2, ast) {
  return class extends makeTypeLiteralClass({}, [{
    key,
    value: value2
  }], ast) {
    static annotations(annotations2) {
      return makeRecordClass(key, value2, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static key = key;
    static value = value2;
  };
}
var Record = (options) => makeRecordClass(options.key, options.value);
function makeBrandClass(from, ast) {
  return class extends make39(ast) {
    static annotations(annotations2) {
      return makeBrandClass(this.from, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static make = (a, options) => getDisableValidationMakeOption(options) ? a : validateSync(this)(a);
    static from = from;
  };
}
var brand = (brand2, annotations2) => (self) => {
  let annotation = match2(getBrandAnnotation(self.ast), {
    onNone: () => [brand2],
    onSome: (brands) => [...brands, brand2]
  }), ast = annotations(self.ast, toASTAnnotations({
    [BrandAnnotationId]: annotation,
    ...annotations2
  }));
  return makeBrandClass(self, ast);
};
var intersectTypeLiterals = (x, y, path) => {
  if (isTypeLiteral(x) && isTypeLiteral(y)) {
    let propertySignatures = [...x.propertySignatures];
    for (let ps of y.propertySignatures) {
      let name = ps.name, i = propertySignatures.findIndex((ps2) => ps2.name === name);
      if (i === -1)
        propertySignatures.push(ps);
      else {
        let {
          isOptional,
          type
        } = propertySignatures[i];
        propertySignatures[i] = new PropertySignature(name, extendAST(type, ps.type, path.concat(name)), isOptional, !0);
      }
    }
    return new TypeLiteral(propertySignatures, x.indexSignatures.concat(y.indexSignatures));
  }
  throw new Error(getSchemaExtendErrorMessage(x, y, path));
}, preserveRefinementAnnotations = /* @__PURE__ */ omitAnnotations([IdentifierAnnotationId]), addRefinementToMembers = (refinement, asts) => asts.map((ast) => new Refinement(ast, refinement.filter, preserveRefinementAnnotations(refinement))), extendAST = (x, y, path) => Union.make(intersectUnionMembers([x], [y], path)), getTypes = (ast) => isUnion(ast) ? ast.types : [ast], intersectUnionMembers = (xs, ys, path) => flatMap2(xs, (x) => flatMap2(ys, (y) => {
  switch (y._tag) {
    case "Literal": {
      if (isString(y.literal) && isStringKeyword(x) || isNumber(y.literal) && isNumberKeyword(x) || isBoolean(y.literal) && isBooleanKeyword(x))
        return [y];
      break;
    }
    case "StringKeyword": {
      if (y === stringKeyword) {
        if (isStringKeyword(x) || isLiteral(x) && isString(x.literal))
          return [x];
        if (isRefinement(x))
          return addRefinementToMembers(x, intersectUnionMembers(getTypes(x.from), [y], path));
      } else if (x === stringKeyword)
        return [y];
      break;
    }
    case "NumberKeyword": {
      if (y === numberKeyword) {
        if (isNumberKeyword(x) || isLiteral(x) && isNumber(x.literal))
          return [x];
        if (isRefinement(x))
          return addRefinementToMembers(x, intersectUnionMembers(getTypes(x.from), [y], path));
      } else if (x === numberKeyword)
        return [y];
      break;
    }
    case "BooleanKeyword": {
      if (y === booleanKeyword) {
        if (isBooleanKeyword(x) || isLiteral(x) && isBoolean(x.literal))
          return [x];
        if (isRefinement(x))
          return addRefinementToMembers(x, intersectUnionMembers(getTypes(x.from), [y], path));
      } else if (x === booleanKeyword)
        return [y];
      break;
    }
    case "Union":
      return intersectUnionMembers(getTypes(x), y.types, path);
    case "Suspend":
      return [new Suspend(() => extendAST(x, y.f(), path))];
    case "Refinement":
      return addRefinementToMembers(y, intersectUnionMembers(getTypes(x), getTypes(y.from), path));
    case "TypeLiteral": {
      switch (x._tag) {
        case "Union":
          return intersectUnionMembers(x.types, [y], path);
        case "Suspend":
          return [new Suspend(() => extendAST(x.f(), y, path))];
        case "Refinement":
          return addRefinementToMembers(x, intersectUnionMembers(getTypes(x.from), [y], path));
        case "TypeLiteral":
          return [intersectTypeLiterals(x, y, path)];
        case "Transformation": {
          let transformation = x.transformation, from = intersectTypeLiterals(x.from, y, path), to = intersectTypeLiterals(x.to, typeAST(y), path);
          switch (transformation._tag) {
            case "TypeLiteralTransformation":
              return [new Transformation(from, to, new TypeLiteralTransformation(transformation.propertySignatureTransformations))];
            case "ComposeTransformation":
              return [new Transformation(from, to, composeTransformation)];
            case "FinalTransformation":
              return [new Transformation(from, to, new FinalTransformation((fromA, options, ast, fromI) => map19(transformation.decode(fromA, options, ast, fromI), (partial2) => ({
                ...fromA,
                ...partial2
              })), (toI, options, ast, toA) => map19(transformation.encode(toI, options, ast, toA), (partial2) => ({
                ...toI,
                ...partial2
              }))))];
          }
        }
      }
      break;
    }
    case "Transformation": {
      if (isTransformation(x)) {
        if (isTypeLiteralTransformation(y.transformation) && isTypeLiteralTransformation(x.transformation))
          return [new Transformation(intersectTypeLiterals(x.from, y.from, path), intersectTypeLiterals(x.to, y.to, path), new TypeLiteralTransformation(y.transformation.propertySignatureTransformations.concat(x.transformation.propertySignatureTransformations)))];
      } else
        return intersectUnionMembers([y], [x], path);
      break;
    }
  }
  throw new Error(getSchemaExtendErrorMessage(x, y, path));
})), extend3 = /* @__PURE__ */ dual(2, (self, that) => make39(extendAST(self.ast, that.ast, [])));
var suspend6 = (f) => make39(new Suspend(() => f().ast)), RefineSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/Refine");
function makeRefineClass(from, filter11, ast) {
  return class extends make39(ast) {
    static annotations(annotations2) {
      return makeRefineClass(this.from, this.filter, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static [RefineSchemaId] = from;
    static from = from;
    static filter = filter11;
    static make = (a, options) => getDisableValidationMakeOption(options) ? a : validateSync(this)(a);
  };
}
var fromFilterPredicateReturnTypeItem = (item, ast, input2) => {
  if (isBoolean(item))
    return item ? none2() : some2(new Type2(ast, input2));
  if (isString(item))
    return some2(new Type2(ast, input2, item));
  if (item !== void 0) {
    if ("_tag" in item)
      return some2(item);
    let issue = new Type2(ast, input2, item.message);
    return some2(isNonEmptyReadonlyArray(item.path) ? new Pointer(item.path, input2, issue) : issue);
  }
  return none2();
}, toFilterParseIssue = (out, ast, input2) => {
  if (isSingle(out))
    return fromFilterPredicateReturnTypeItem(out, ast, input2);
  if (isNonEmptyReadonlyArray(out)) {
    let issues = filterMap3(out, (issue) => fromFilterPredicateReturnTypeItem(issue, ast, input2));
    if (isNonEmptyReadonlyArray(issues))
      return some2(issues.length === 1 ? issues[0] : new Composite2(ast, input2, issues));
  }
  return none2();
};
function filter8(predicate, annotations2) {
  return (self) => {
    function filter11(input2, options, ast2) {
      return toFilterParseIssue(predicate(input2, options, ast2), ast2, input2);
    }
    let ast = new Refinement(self.ast, filter11, toASTAnnotations(annotations2));
    return makeRefineClass(self, filter11, ast);
  };
}
function makeTransformationClass(from, to, ast) {
  return class extends make39(ast) {
    static annotations(annotations2) {
      return makeTransformationClass(this.from, this.to, mergeSchemaAnnotations(this.ast, annotations2));
    }
    static from = from;
    static to = to;
  };
}
var transformOrFail = /* @__PURE__ */ dual((args2) => isSchema(args2[0]) && isSchema(args2[1]), (from, to, options) => makeTransformationClass(from, to, new Transformation(from.ast, to.ast, new FinalTransformation(options.decode, options.encode)))), transform2 = /* @__PURE__ */ dual((args2) => isSchema(args2[0]) && isSchema(args2[1]), (from, to, options) => transformOrFail(from, to, {
  strict: !0,
  decode: (fromA, _options, _ast, toA) => succeed10(options.decode(fromA, toA)),
  encode: (toI, _options, _ast, toA) => succeed10(options.encode(toI, toA))
}));
var TrimmedSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/Trimmed"), trimmed = (annotations2) => (self) => self.pipe(filter8((a) => a === a.trim(), {
  schemaId: TrimmedSchemaId,
  title: "trimmed",
  description: "a string with no leading or trailing whitespace",
  jsonSchema: {
    pattern: "^\\S[\\s\\S]*\\S$|^\\S$|^$"
  },
  ...annotations2
}));
var MinLengthSchemaId2 = MinLengthSchemaId, minLength = (minLength2, annotations2) => (self) => self.pipe(filter8((a) => a.length >= minLength2, {
  schemaId: MinLengthSchemaId2,
  title: `minLength(${minLength2})`,
  description: `a string at least ${minLength2} character(s) long`,
  jsonSchema: {
    minLength: minLength2
  },
  ...annotations2
}));
var PatternSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/Pattern"), pattern = (regex, annotations2) => (self) => {
  let source = regex.source;
  return self.pipe(filter8((a) => (regex.lastIndex = 0, regex.test(a)), {
    schemaId: PatternSchemaId,
    [PatternSchemaId]: {
      regex
    },
    // title: `pattern(/${source}/)`, // avoiding this because it can be very long
    description: `a string matching the pattern ${source}`,
    jsonSchema: {
      pattern: source
    },
    ...annotations2
  }));
};
var nonEmptyString2 = (annotations2) => minLength(1, {
  title: "nonEmptyString",
  description: "a non empty string",
  ...annotations2
});
var Trimmed = class extends (/* @__PURE__ */ String$.pipe(/* @__PURE__ */ trimmed({
  identifier: "Trimmed"
}))) {
}, NonEmptyTrimmedString = class extends (/* @__PURE__ */ Trimmed.pipe(/* @__PURE__ */ nonEmptyString2({
  identifier: "NonEmptyTrimmedString"
}))) {
};
var UUIDSchemaId = /* @__PURE__ */ Symbol.for("effect/SchemaId/UUID"), uuidRegexp = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/i, UUID = class extends (/* @__PURE__ */ String$.pipe(/* @__PURE__ */ pattern(uuidRegexp, {
  schemaId: UUIDSchemaId,
  identifier: "UUID",
  jsonSchema: {
    format: "uuid",
    pattern: uuidRegexp.source
  },
  description: "a Universally Unique Identifier",
  arbitrary: () => (fc) => fc.uuid()
}))) {
};
var FiniteSchemaId2 = FiniteSchemaId, finite = (annotations2) => (self) => self.pipe(filter8(Number.isFinite, {
  schemaId: FiniteSchemaId2,
  title: "finite",
  description: "a finite number",
  jsonSchema: {},
  ...annotations2
})), GreaterThanSchemaId2 = GreaterThanSchemaId, greaterThan4 = (exclusiveMinimum, annotations2) => (self) => self.pipe(filter8((a) => a > exclusiveMinimum, {
  schemaId: GreaterThanSchemaId2,
  title: `greaterThan(${exclusiveMinimum})`,
  description: exclusiveMinimum === 0 ? "a positive number" : `a number greater than ${exclusiveMinimum}`,
  jsonSchema: {
    exclusiveMinimum
  },
  ...annotations2
})), GreaterThanOrEqualToSchemaId2 = GreaterThanOrEqualToSchemaId, greaterThanOrEqualTo3 = (minimum, annotations2) => (self) => self.pipe(filter8((a) => a >= minimum, {
  schemaId: GreaterThanOrEqualToSchemaId2,
  title: `greaterThanOrEqualTo(${minimum})`,
  description: minimum === 0 ? "a non-negative number" : `a number greater than or equal to ${minimum}`,
  jsonSchema: {
    minimum
  },
  ...annotations2
}));
var IntSchemaId2 = IntSchemaId, int = (annotations2) => (self) => self.pipe(filter8((a) => Number.isSafeInteger(a), {
  schemaId: IntSchemaId2,
  title: "int",
  description: "an integer",
  jsonSchema: {
    type: "integer"
  },
  ...annotations2
}));
var BetweenSchemaId2 = BetweenSchemaId, between3 = (minimum, maximum, annotations2) => (self) => self.pipe(filter8((a) => a >= minimum && a <= maximum, {
  schemaId: BetweenSchemaId2,
  title: `between(${minimum}, ${maximum})`,
  description: `a number between ${minimum} and ${maximum}`,
  jsonSchema: {
    minimum,
    maximum
  },
  ...annotations2
}));
var positive = (annotations2) => greaterThan4(0, {
  title: "positive",
  ...annotations2
});
var nonNegative = (annotations2) => greaterThanOrEqualTo3(0, {
  title: "nonNegative",
  ...annotations2
});
var Int = class extends (/* @__PURE__ */ Number$.pipe(/* @__PURE__ */ int({
  identifier: "Int"
}))) {
};
var NonNegative = class extends (/* @__PURE__ */ Number$.pipe(/* @__PURE__ */ nonNegative({
  identifier: "NonNegative"
}))) {
};
var toComposite = (eff, onSuccess, ast, actual) => mapBoth4(eff, {
  onFailure: (e) => new Composite2(ast, actual, e),
  onSuccess
});
var DurationFromSelf = class extends (/* @__PURE__ */ declare(isDuration, {
  typeConstructor: {
    _tag: "effect/Duration"
  },
  identifier: "DurationFromSelf",
  pretty: () => String,
  arbitrary: () => (fc) => fc.oneof(fc.constant(infinity), fc.bigInt({
    min: 0n
  }).map((_) => nanos(_)), fc.maxSafeNat().map((_) => millis(_))),
  equivalence: () => Equivalence
})) {
};
var DurationFromMillis = class extends (/* @__PURE__ */ transform2(NonNegative.annotations({
  description: "a non-negative number to be decoded into a Duration"
}), DurationFromSelf, {
  strict: !0,
  decode: (i) => millis(i),
  encode: (a) => toMillis(a)
}).annotations({
  identifier: "DurationFromMillis"
})) {
};
var DateFromSelfSchemaId2 = DateFromSelfSchemaId, DateFromSelf = class extends (/* @__PURE__ */ declare(isDate, {
  typeConstructor: {
    _tag: "Date"
  },
  identifier: "DateFromSelf",
  schemaId: DateFromSelfSchemaId2,
  [DateFromSelfSchemaId2]: {
    noInvalidDate: !1
  },
  description: "a potentially invalid Date instance",
  pretty: () => (date2) => `new Date(${JSON.stringify(date2)})`,
  arbitrary: () => (fc) => fc.date({
    noInvalidDate: !1
  }),
  equivalence: () => Date2
})) {
};
var optionDecode = (input2) => input2._tag === "None" ? none2() : some2(input2.value), optionArbitrary = (value2, ctx) => (fc) => fc.oneof(ctx, fc.record({
  _tag: fc.constant("None")
}), fc.record({
  _tag: fc.constant("Some"),
  value: value2(fc)
})).map(optionDecode), optionPretty = (value2) => match2({
  onNone: () => "none()",
  onSome: (a) => `some(${value2(a)})`
}), optionParse = (decodeUnknown2) => (u, options, ast) => isOption2(u) ? isNone2(u) ? succeed10(none2()) : toComposite(decodeUnknown2(u.value, options), some2, ast, u) : fail9(new Type2(ast, u)), OptionFromSelf_ = (value2) => declare([value2], {
  decode: (value3) => optionParse(decodeUnknown(value3)),
  encode: (value3) => optionParse(encodeUnknown(value3))
}, {
  typeConstructor: {
    _tag: "effect/Option"
  },
  pretty: optionPretty,
  arbitrary: optionArbitrary,
  equivalence: getEquivalence
});
var isField = (u) => isSchema(u) || isPropertySignature(u), isFields = (fields) => Reflect.ownKeys(fields).every((key) => isField(fields[key])), getFields = (hasFields) => "fields" in hasFields ? hasFields.fields : getFields(hasFields[RefineSchemaId]), getSchemaFromFieldsOr = (fieldsOr) => isFields(fieldsOr) ? Struct(fieldsOr) : isSchema(fieldsOr) ? fieldsOr : Struct(getFields(fieldsOr)), getFieldsFromFieldsOr = (fieldsOr) => isFields(fieldsOr) ? fieldsOr : getFields(fieldsOr);
var getClassTag = (tag2) => withConstructorDefault(propertySignature(Literal2(tag2)), () => tag2);
var TaggedError2 = (identifier2) => (tag2, fieldsOr, annotations2) => {
  class Base3 extends Error3 {
  }
  Base3.prototype.name = tag2;
  let fields = getFieldsFromFieldsOr(fieldsOr), schema = getSchemaFromFieldsOr(fieldsOr), newFields = {
    _tag: getClassTag(tag2)
  }, taggedFields = extendFields(newFields, fields), hasMessageField = "message" in taggedFields;
  class TaggedErrorClass extends makeClass({
    kind: "TaggedError",
    identifier: identifier2 ?? tag2,
    schema: extend3(schema, Struct(newFields)),
    fields: taggedFields,
    Base: Base3,
    annotations: annotations2,
    disableToString: !0
  }) {
    static _tag = tag2;
  }
  return hasMessageField || Object.defineProperty(TaggedErrorClass.prototype, "message", {
    get() {
      return `{ ${Reflect.ownKeys(fields).map((p) => `${formatPropertyKey(p)}: ${formatUnknown(this[p])}`).join(", ")} }`;
    },
    enumerable: !1,
    // mirrors the built-in Error.prototype.message, whose descriptor is also non-enumerable
    configurable: !0
  }), TaggedErrorClass;
}, extendFields = (a, b) => {
  let out = {
    ...a
  };
  for (let key of Reflect.ownKeys(b)) {
    if (key in a)
      throw new Error(getASTDuplicatePropertySignatureErrorMessage(key));
    out[key] = b[key];
  }
  return out;
};
function getDisableValidationMakeOption(options) {
  return isBoolean(options) ? options : options?.disableValidation ?? !1;
}
var astCache = /* @__PURE__ */ globalValue("effect/Schema/astCache", () => /* @__PURE__ */ new WeakMap()), getClassAnnotations = (annotations2) => annotations2 === void 0 ? [] : Array.isArray(annotations2) ? annotations2 : [annotations2], makeClass = ({
  Base: Base3,
  annotations: annotations2,
  disableToString,
  fields,
  identifier: identifier2,
  kind,
  schema
}) => {
  let classSymbol = /* @__PURE__ */ Symbol.for(`effect/Schema/${kind}/${identifier2}`), [typeAnnotations, transformationAnnotations, encodedAnnotations] = getClassAnnotations(annotations2), typeSchema_ = typeSchema(schema), declarationSurrogate = typeSchema_.annotations({
    identifier: identifier2,
    ...typeAnnotations
  }), typeSide = typeSchema_.annotations({
    [AutoTitleAnnotationId]: `${identifier2} (Type side)`,
    ...typeAnnotations
  }), constructorSchema = schema.annotations({
    [AutoTitleAnnotationId]: `${identifier2} (Constructor)`,
    ...typeAnnotations
  }), encodedSide = schema.annotations({
    [AutoTitleAnnotationId]: `${identifier2} (Encoded side)`,
    ...encodedAnnotations
  }), transformationSurrogate = schema.annotations({
    ...encodedAnnotations,
    ...typeAnnotations,
    ...transformationAnnotations
  }), fallbackInstanceOf = (u) => hasProperty(u, classSymbol) && is(typeSide)(u), klass = class extends Base3 {
    constructor(props = {}, options = !1) {
      props = {
        ...props
      }, kind !== "Class" && delete props._tag, props = lazilyMergeDefaults(fields, props), getDisableValidationMakeOption(options) || (props = validateSync(constructorSchema)(props)), super(props, !0);
    }
    // ----------------
    // Schema interface
    // ----------------
    static [TypeId16] = variance5;
    static get ast() {
      let out = astCache.get(this);
      if (out)
        return out;
      let declaration = declare([schema], {
        decode: () => (input2, _, ast) => input2 instanceof this || fallbackInstanceOf(input2) ? succeed10(input2) : fail9(new Type2(ast, input2)),
        encode: () => (input2, options) => input2 instanceof this ? succeed10(input2) : map19(encodeUnknown(typeSide)(input2, options), (props) => new this(props, !0))
      }, {
        identifier: identifier2,
        pretty: (pretty4) => (self) => `${identifier2}(${pretty4(self)})`,
        // @ts-expect-error
        arbitrary: (arb) => (fc) => arb(fc).map((props) => new this(props)),
        equivalence: identity,
        [SurrogateAnnotationId]: declarationSurrogate.ast,
        ...typeAnnotations
      });
      return out = transform2(encodedSide, declaration, {
        strict: !0,
        decode: (i) => new this(i, !0),
        encode: identity
      }).annotations({
        [SurrogateAnnotationId]: transformationSurrogate.ast,
        ...transformationAnnotations
      }).ast, astCache.set(this, out), out;
    }
    static pipe() {
      return pipeArguments(this, arguments);
    }
    static annotations(annotations3) {
      return make39(this.ast).annotations(annotations3);
    }
    static toString() {
      return `(${String(encodedSide)} <-> ${identifier2})`;
    }
    // ----------------
    // Class interface
    // ----------------
    static make(...args2) {
      return new this(...args2);
    }
    static fields = {
      ...fields
    };
    static identifier = identifier2;
    static extend(identifier3) {
      return (newFieldsOr, annotations3) => {
        let newFields = getFieldsFromFieldsOr(newFieldsOr), newSchema = getSchemaFromFieldsOr(newFieldsOr), extendedFields = extendFields(fields, newFields);
        return makeClass({
          kind,
          identifier: identifier3,
          schema: extend3(schema, newSchema),
          fields: extendedFields,
          Base: this,
          annotations: annotations3
        });
      };
    }
    static transformOrFail(identifier3) {
      return (newFieldsOr, options, annotations3) => {
        let transformedFields = extendFields(fields, newFieldsOr);
        return makeClass({
          kind,
          identifier: identifier3,
          schema: transformOrFail(schema, typeSchema(Struct(transformedFields)), options),
          fields: transformedFields,
          Base: this,
          annotations: annotations3
        });
      };
    }
    static transformOrFailFrom(identifier3) {
      return (newFields, options, annotations3) => {
        let transformedFields = extendFields(fields, newFields);
        return makeClass({
          kind,
          identifier: identifier3,
          schema: transformOrFail(encodedSchema(schema), Struct(transformedFields), options),
          fields: transformedFields,
          Base: this,
          annotations: annotations3
        });
      };
    }
    // ----------------
    // other
    // ----------------
    get [classSymbol]() {
      return classSymbol;
    }
  };
  return disableToString !== !0 && Object.defineProperty(klass.prototype, "toString", {
    value() {
      return `${identifier2}({ ${Reflect.ownKeys(fields).map((p) => `${formatPropertyKey(p)}: ${formatUnknown(this[p])}`).join(", ")} })`;
    },
    configurable: !0,
    writable: !0
  }), klass;
};

// packages/kernel/src/EventBus.ts
var EventBus_exports = {};
__export(EventBus_exports, {
  EventBus: () => EventBus,
  layer: () => layer2,
  make: () => make47,
  of: () => of4,
  publish: () => publish2,
  silent: () => silent
});

// packages/kernel/src/internal/eventBus.ts
var logFailure = (cause2) => logWarning2("agent-kernel observer failed", cause2), call = (f, event2) => {
  try {
    return f(event2);
  } catch (defect) {
    return die5(defect);
  }
}, deliverAll = (onEvent, events, started) => {
  if (events.length === 0) return _void;
  if (events.length === 1 && onEvent.length === 1) {
    let f = onEvent[0], only = events[0];
    return started ? catchAllCause2(call(f, only), logFailure) : suspend3(() => catchAllCause2(call(f, only), logFailure));
  }
  let event2 = 0, observer2 = 0, step4 = () => {
    let f = onEvent[observer2], called = call(f, events[event2]);
    return ++observer2 === onEvent.length && (observer2 = 0, ++event2 === events.length) ? catchAllCause2(called, logFailure) : matchCauseEffect3(called, handlers);
  }, handlers = {
    onSuccess: step4,
    onFailure: (cause2) => flatMap9(logFailure(cause2), step4)
  };
  return started ? step4() : suspend3(step4);
}, observers = /* @__PURE__ */ new WeakMap(), register = (onEvent, bus) => (observers.set(bus, { deliver: bus.deliver, onEvent }), bus), deliverStarted = (bus, events) => {
  let registered = observers.get(bus);
  return registered === void 0 || registered.deliver !== bus.deliver ? bus.deliver(events) : registered.onEvent.length === 0 ? _void : deliverAll(registered.onEvent, events, !0);
};

// packages/kernel/src/ModelProvider.ts
var ModelProvider_exports = {};
__export(ModelProvider_exports, {
  CurrentCallTimeouts: () => CurrentCallTimeouts,
  ModelProvider: () => ModelProvider,
  ModelRequest: () => ModelRequest,
  ModelResponse: () => ModelResponse,
  ReasoningEffort: () => ReasoningEffort,
  RequestOptions: () => RequestOptions,
  StopReason: () => StopReason,
  ToolChoice: () => ToolChoice,
  ToolDefinition: () => ToolDefinition,
  Usage: () => Usage,
  addUsage: () => addUsage,
  callTimeoutsFrom: () => callTimeoutsFrom,
  emptyUsage: () => emptyUsage,
  fromGenerate: () => fromGenerate,
  generate: () => generate,
  keepPartialText: () => keepPartialText,
  layer: () => layer,
  make: () => make46,
  unfinished: () => unfinished
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/queue.js
var EnqueueSymbolKey = "effect/QueueEnqueue", EnqueueTypeId = /* @__PURE__ */ Symbol.for(EnqueueSymbolKey), DequeueSymbolKey = "effect/QueueDequeue", DequeueTypeId = /* @__PURE__ */ Symbol.for(DequeueSymbolKey), QueueStrategySymbolKey = "effect/QueueStrategy", QueueStrategyTypeId = /* @__PURE__ */ Symbol.for(QueueStrategySymbolKey), BackingQueueSymbolKey = "effect/BackingQueue", BackingQueueTypeId = /* @__PURE__ */ Symbol.for(BackingQueueSymbolKey), queueStrategyVariance = {
  /* c8 ignore next */
  _A: (_) => _
}, backingQueueVariance = {
  /* c8 ignore next */
  _A: (_) => _
}, enqueueVariance = {
  /* c8 ignore next */
  _In: (_) => _
}, dequeueVariance = {
  /* c8 ignore next */
  _Out: (_) => _
}, QueueImpl = class extends Class2 {
  queue;
  takers;
  shutdownHook;
  shutdownFlag;
  strategy;
  [EnqueueTypeId] = enqueueVariance;
  [DequeueTypeId] = dequeueVariance;
  constructor(queue, takers, shutdownHook, shutdownFlag, strategy) {
    super(), this.queue = queue, this.takers = takers, this.shutdownHook = shutdownHook, this.shutdownFlag = shutdownFlag, this.strategy = strategy;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
  commit() {
    return this.take;
  }
  capacity() {
    return this.queue.capacity();
  }
  get size() {
    return suspend(() => catchAll(this.unsafeSize(), () => interrupt2));
  }
  unsafeSize() {
    return get6(this.shutdownFlag) ? none2() : some2(this.queue.length() - length2(this.takers) + this.strategy.surplusSize());
  }
  get isEmpty() {
    return map10(this.size, (size13) => size13 <= 0);
  }
  get isFull() {
    return map10(this.size, (size13) => size13 >= this.capacity());
  }
  get shutdown() {
    return uninterruptible(withFiberRuntime((state) => (pipe(this.shutdownFlag, set2(!0)), pipe(forEachConcurrentDiscard(unsafePollAll(this.takers), (d) => deferredInterruptWith(d, state.id()), !1, !1), zipRight(this.strategy.shutdown), whenEffect(deferredSucceed(this.shutdownHook, void 0)), asVoid))));
  }
  get isShutdown() {
    return sync(() => get6(this.shutdownFlag));
  }
  get awaitShutdown() {
    return deferredAwait(this.shutdownHook);
  }
  isActive() {
    return !get6(this.shutdownFlag);
  }
  unsafeOffer(value2) {
    if (get6(this.shutdownFlag))
      return !1;
    let noRemaining;
    if (this.queue.length() === 0) {
      let taker = pipe(this.takers, poll2(EmptyMutableQueue));
      taker !== EmptyMutableQueue ? (unsafeCompleteDeferred(taker, value2), noRemaining = !0) : noRemaining = !1;
    } else
      noRemaining = !1;
    if (noRemaining)
      return !0;
    let succeeded = this.queue.offer(value2);
    return unsafeCompleteTakers(this.strategy, this.queue, this.takers), succeeded;
  }
  offer(value2) {
    return suspend(() => {
      if (get6(this.shutdownFlag))
        return interrupt2;
      let noRemaining;
      if (this.queue.length() === 0) {
        let taker = pipe(this.takers, poll2(EmptyMutableQueue));
        taker !== EmptyMutableQueue ? (unsafeCompleteDeferred(taker, value2), noRemaining = !0) : noRemaining = !1;
      } else
        noRemaining = !1;
      if (noRemaining)
        return succeed(!0);
      let succeeded = this.queue.offer(value2);
      return unsafeCompleteTakers(this.strategy, this.queue, this.takers), succeeded ? succeed(!0) : this.strategy.handleSurplus([value2], this.queue, this.takers, this.shutdownFlag);
    });
  }
  offerAll(iterable) {
    return suspend(() => {
      if (get6(this.shutdownFlag))
        return interrupt2;
      let values3 = fromIterable(iterable), pTakers = this.queue.length() === 0 ? fromIterable(unsafePollN(this.takers, values3.length)) : empty2, [forTakers, remaining] = pipe(values3, splitAt(pTakers.length));
      for (let i = 0; i < pTakers.length; i++) {
        let taker = pTakers[i], item = forTakers[i];
        unsafeCompleteDeferred(taker, item);
      }
      if (remaining.length === 0)
        return succeed(!0);
      let surplus = this.queue.offerAll(remaining);
      return unsafeCompleteTakers(this.strategy, this.queue, this.takers), isEmpty(surplus) ? succeed(!0) : this.strategy.handleSurplus(surplus, this.queue, this.takers, this.shutdownFlag);
    });
  }
  get take() {
    return withFiberRuntime((state) => {
      if (get6(this.shutdownFlag))
        return interrupt2;
      let item = this.queue.poll(EmptyMutableQueue);
      if (item !== EmptyMutableQueue)
        return this.strategy.unsafeOnQueueEmptySpace(this.queue, this.takers), succeed(item);
      {
        let deferred = deferredUnsafeMake(state.id());
        return pipe(suspend(() => (pipe(this.takers, offer(deferred)), unsafeCompleteTakers(this.strategy, this.queue, this.takers), get6(this.shutdownFlag) ? interrupt2 : deferredAwait(deferred))), onInterrupt(() => sync(() => unsafeRemove(this.takers, deferred))));
      }
    });
  }
  get takeAll() {
    return suspend(() => get6(this.shutdownFlag) ? interrupt2 : sync(() => {
      let values3 = this.queue.pollUpTo(Number.POSITIVE_INFINITY);
      return this.strategy.unsafeOnQueueEmptySpace(this.queue, this.takers), fromIterable2(values3);
    }));
  }
  takeUpTo(max6) {
    return suspend(() => get6(this.shutdownFlag) ? interrupt2 : sync(() => {
      let values3 = this.queue.pollUpTo(max6);
      return this.strategy.unsafeOnQueueEmptySpace(this.queue, this.takers), fromIterable2(values3);
    }));
  }
  takeBetween(min4, max6) {
    return suspend(() => takeRemainderLoop(this, min4, max6, empty3()));
  }
}, takeRemainderLoop = (self, min4, max6, acc) => max6 < min4 ? succeed(acc) : pipe(takeUpTo(self, max6), flatMap7((bs) => {
  let remaining = min4 - bs.length;
  return remaining === 1 ? pipe(take(self), map10((b) => pipe(acc, appendAll2(bs), append2(b)))) : remaining > 1 ? pipe(take(self), flatMap7((b) => takeRemainderLoop(self, remaining - 1, max6 - bs.length - 1, pipe(acc, appendAll2(bs), append2(b))))) : succeed(pipe(acc, appendAll2(bs)));
}));
var bounded2 = (requestedCapacity) => pipe(sync(() => bounded(requestedCapacity)), flatMap7((queue) => make40(backingQueueFromMutableQueue(queue), backPressureStrategy())));
var unbounded2 = () => pipe(sync(() => unbounded()), flatMap7((queue) => make40(backingQueueFromMutableQueue(queue), droppingStrategy()))), unsafeMake8 = (queue, takers, shutdownHook, shutdownFlag, strategy) => new QueueImpl(queue, takers, shutdownHook, shutdownFlag, strategy), make40 = (queue, strategy) => pipe(deferredMake(), map10((deferred) => unsafeMake8(queue, unbounded(), deferred, make11(!1), strategy))), BackingQueueFromMutableQueue = class {
  mutable;
  [BackingQueueTypeId] = backingQueueVariance;
  constructor(mutable2) {
    this.mutable = mutable2;
  }
  poll(def) {
    return poll2(this.mutable, def);
  }
  pollUpTo(limit) {
    return pollUpTo(this.mutable, limit);
  }
  offerAll(elements) {
    return offerAll(this.mutable, elements);
  }
  offer(element) {
    return offer(this.mutable, element);
  }
  capacity() {
    return capacity(this.mutable);
  }
  length() {
    return length2(this.mutable);
  }
}, backingQueueFromMutableQueue = (mutable2) => new BackingQueueFromMutableQueue(mutable2);
var size10 = (self) => self.size;
var isShutdown = (self) => self.isShutdown;
var shutdown = (self) => self.shutdown, offer2 = /* @__PURE__ */ dual(2, (self, value2) => self.offer(value2));
var take = (self) => self.take;
var takeUpTo = /* @__PURE__ */ dual(2, (self, max6) => self.takeUpTo(max6)), takeBetween = /* @__PURE__ */ dual(3, (self, min4, max6) => self.takeBetween(min4, max6));
var backPressureStrategy = () => new BackPressureStrategy(), droppingStrategy = () => new DroppingStrategy();
var BackPressureStrategy = class {
  [QueueStrategyTypeId] = queueStrategyVariance;
  putters = /* @__PURE__ */ unbounded();
  surplusSize() {
    return length2(this.putters);
  }
  onCompleteTakersWithEmptyQueue(takers) {
    for (; !isEmpty9(this.putters) && !isEmpty9(takers); ) {
      let taker = poll2(takers, void 0), putter = poll2(this.putters, void 0);
      putter[2] && unsafeCompleteDeferred(putter[1], !0), unsafeCompleteDeferred(taker, putter[0]);
    }
  }
  get shutdown() {
    return pipe(fiberId, flatMap7((fiberId2) => pipe(sync(() => unsafePollAll(this.putters)), flatMap7((putters) => forEachConcurrentDiscard(putters, ([_, deferred, isLastItem]) => isLastItem ? pipe(deferredInterruptWith(deferred, fiberId2), asVoid) : void_, !1, !1)))));
  }
  handleSurplus(iterable, queue, takers, isShutdown4) {
    return withFiberRuntime((state) => {
      let deferred = deferredUnsafeMake(state.id());
      return pipe(suspend(() => (this.unsafeOffer(iterable, deferred), this.unsafeOnQueueEmptySpace(queue, takers), unsafeCompleteTakers(this, queue, takers), get6(isShutdown4) ? interrupt2 : deferredAwait(deferred))), onInterrupt(() => sync(() => this.unsafeRemove(deferred))));
    });
  }
  unsafeOnQueueEmptySpace(queue, takers) {
    let keepPolling = !0;
    for (; keepPolling && (queue.capacity() === Number.POSITIVE_INFINITY || queue.length() < queue.capacity()); ) {
      let putter = pipe(this.putters, poll2(EmptyMutableQueue));
      if (putter === EmptyMutableQueue)
        keepPolling = !1;
      else {
        let offered = queue.offer(putter[0]);
        offered && putter[2] ? unsafeCompleteDeferred(putter[1], !0) : offered || unsafeOfferAll(this.putters, pipe(unsafePollAll(this.putters), prepend2(putter))), unsafeCompleteTakers(this, queue, takers);
      }
    }
  }
  unsafeOffer(iterable, deferred) {
    let stuff = fromIterable(iterable);
    for (let i = 0; i < stuff.length; i++) {
      let value2 = stuff[i];
      i === stuff.length - 1 ? pipe(this.putters, offer([value2, deferred, !0])) : pipe(this.putters, offer([value2, deferred, !1]));
    }
  }
  unsafeRemove(deferred) {
    unsafeOfferAll(this.putters, pipe(unsafePollAll(this.putters), filter3(([, _]) => _ !== deferred)));
  }
}, DroppingStrategy = class {
  [QueueStrategyTypeId] = queueStrategyVariance;
  surplusSize() {
    return 0;
  }
  get shutdown() {
    return void_;
  }
  onCompleteTakersWithEmptyQueue() {
  }
  handleSurplus(_iterable, _queue, _takers, _isShutdown) {
    return succeed(!1);
  }
  unsafeOnQueueEmptySpace(_queue, _takers) {
  }
}, SlidingStrategy = class {
  [QueueStrategyTypeId] = queueStrategyVariance;
  surplusSize() {
    return 0;
  }
  get shutdown() {
    return void_;
  }
  onCompleteTakersWithEmptyQueue() {
  }
  handleSurplus(iterable, queue, takers, _isShutdown) {
    return sync(() => (this.unsafeOffer(queue, iterable), unsafeCompleteTakers(this, queue, takers), !0));
  }
  unsafeOnQueueEmptySpace(_queue, _takers) {
  }
  unsafeOffer(queue, iterable) {
    let iterator = iterable[Symbol.iterator](), next3, offering = !0;
    for (; !(next3 = iterator.next()).done && offering; ) {
      if (queue.capacity() === 0)
        return;
      queue.poll(EmptyMutableQueue), offering = queue.offer(next3.value);
    }
  }
}, unsafeCompleteDeferred = (deferred, a) => deferredUnsafeDone(deferred, succeed(a)), unsafeOfferAll = (queue, as8) => pipe(queue, offerAll(as8)), unsafePollAll = (queue) => pipe(queue, pollUpTo(Number.POSITIVE_INFINITY)), unsafePollN = (queue, max6) => pipe(queue, pollUpTo(max6)), unsafeRemove = (queue, a) => {
  unsafeOfferAll(queue, pipe(unsafePollAll(queue), filter3((b) => a !== b)));
}, unsafeCompleteTakers = (strategy, queue, takers) => {
  let keepPolling = !0;
  for (; keepPolling && queue.length() !== 0; ) {
    let taker = pipe(takers, poll2(EmptyMutableQueue));
    if (taker !== EmptyMutableQueue) {
      let element = queue.poll(EmptyMutableQueue);
      element !== EmptyMutableQueue ? (unsafeCompleteDeferred(taker, element), strategy.unsafeOnQueueEmptySpace(queue, takers)) : unsafeOfferAll(takers, pipe(unsafePollAll(takers), prepend2(taker))), keepPolling = !0;
    } else
      keepPolling = !1;
  }
  keepPolling && queue.length() === 0 && !isEmpty9(takers) && strategy.onCompleteTakersWithEmptyQueue(takers);
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Queue.js
var bounded3 = bounded2;
var unbounded3 = unbounded2;
var size11 = size10;
var isShutdown2 = isShutdown;
var shutdown2 = shutdown, offer3 = offer2;
var take2 = take;
var takeBetween2 = takeBetween;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/FiberRef.js
var set6 = fiberRefSet;
var modify6 = fiberRefModify;
var currentContext2 = currentContext;
var currentMetricLabels2 = currentMetricLabels, currentTracerEnabled2 = currentTracerEnabled, currentTracerTimingEnabled2 = currentTracerTimingEnabled, currentTracerSpanAnnotations2 = currentTracerSpanAnnotations, currentTracerSpanLinks2 = currentTracerSpanLinks;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/pubsub.js
var AbsentValue = /* @__PURE__ */ Symbol.for("effect/PubSub/AbsentValue"), addSubscribers = (subscription, pollers) => (subscribers) => {
  subscribers.has(subscription) || subscribers.set(subscription, /* @__PURE__ */ new Set()), subscribers.get(subscription).add(pollers);
}, removeSubscribers = (subscription, pollers) => (subscribers) => {
  if (!subscribers.has(subscription))
    return;
  let set9 = subscribers.get(subscription);
  set9.delete(pollers), set9.size === 0 && subscribers.delete(subscription);
}, bounded4 = (capacity4) => suspend(() => {
  let pubsub = makeBoundedPubSub(capacity4);
  return makePubSub(pubsub, new BackPressureStrategy2());
});
var shutdown3 = (self) => self.shutdown;
var publishAll = /* @__PURE__ */ dual(2, (self, elements) => self.publishAll(elements)), subscribe = (self) => self.subscribe, makeBoundedPubSub = (capacity4) => {
  let options = typeof capacity4 == "number" ? {
    capacity: capacity4
  } : capacity4;
  ensureCapacity(options.capacity);
  let replayBuffer = options.replay && options.replay > 0 ? new ReplayBuffer(Math.ceil(options.replay)) : void 0;
  return options.capacity === 1 ? new BoundedPubSubSingle(replayBuffer) : nextPow2(options.capacity) === options.capacity ? new BoundedPubSubPow2(options.capacity, replayBuffer) : new BoundedPubSubArb(options.capacity, replayBuffer);
};
var makeSubscription = (pubsub, subscribers, strategy) => map10(deferredMake(), (deferred) => unsafeMakeSubscription(pubsub, subscribers, pubsub.subscribe(), unbounded(), deferred, make11(!1), strategy)), unsafeMakeSubscription = (pubsub, subscribers, subscription, pollers, shutdownHook, shutdownFlag, strategy) => new SubscriptionImpl(pubsub, subscribers, subscription, pollers, shutdownHook, shutdownFlag, strategy, pubsub.replayWindow()), BoundedPubSubArb = class {
  capacity;
  replayBuffer;
  array;
  publisherIndex = 0;
  subscribers;
  subscriberCount = 0;
  subscribersIndex = 0;
  constructor(capacity4, replayBuffer) {
    this.capacity = capacity4, this.replayBuffer = replayBuffer, this.array = Array.from({
      length: capacity4
    }), this.subscribers = Array.from({
      length: capacity4
    });
  }
  replayWindow() {
    return this.replayBuffer ? new ReplayWindowImpl(this.replayBuffer) : emptyReplayWindow;
  }
  isEmpty() {
    return this.publisherIndex === this.subscribersIndex;
  }
  isFull() {
    return this.publisherIndex === this.subscribersIndex + this.capacity;
  }
  size() {
    return this.publisherIndex - this.subscribersIndex;
  }
  publish(value2) {
    if (this.isFull())
      return !1;
    if (this.subscriberCount !== 0) {
      let index = this.publisherIndex % this.capacity;
      this.array[index] = value2, this.subscribers[index] = this.subscriberCount, this.publisherIndex += 1;
    }
    return this.replayBuffer && this.replayBuffer.offer(value2), !0;
  }
  publishAll(elements) {
    if (this.subscriberCount === 0)
      return this.replayBuffer && this.replayBuffer.offerAll(elements), empty3();
    let chunk3 = fromIterable2(elements), n = chunk3.length, size13 = this.publisherIndex - this.subscribersIndex, available = this.capacity - size13, forPubSub = Math.min(n, available);
    if (forPubSub === 0)
      return chunk3;
    let iteratorIndex = 0, publishAllIndex = this.publisherIndex + forPubSub;
    for (; this.publisherIndex !== publishAllIndex; ) {
      let a = unsafeGet2(chunk3, iteratorIndex++), index = this.publisherIndex % this.capacity;
      this.array[index] = a, this.subscribers[index] = this.subscriberCount, this.publisherIndex += 1, this.replayBuffer && this.replayBuffer.offer(a);
    }
    return drop2(chunk3, iteratorIndex);
  }
  slide() {
    if (this.subscribersIndex !== this.publisherIndex) {
      let index = this.subscribersIndex % this.capacity;
      this.array[index] = AbsentValue, this.subscribers[index] = 0, this.subscribersIndex += 1;
    }
    this.replayBuffer && this.replayBuffer.slide();
  }
  subscribe() {
    return this.subscriberCount += 1, new BoundedPubSubArbSubscription(this, this.publisherIndex, !1);
  }
}, BoundedPubSubArbSubscription = class {
  self;
  subscriberIndex;
  unsubscribed;
  constructor(self, subscriberIndex, unsubscribed) {
    this.self = self, this.subscriberIndex = subscriberIndex, this.unsubscribed = unsubscribed;
  }
  isEmpty() {
    return this.unsubscribed || this.self.publisherIndex === this.subscriberIndex || this.self.publisherIndex === this.self.subscribersIndex;
  }
  size() {
    return this.unsubscribed ? 0 : this.self.publisherIndex - Math.max(this.subscriberIndex, this.self.subscribersIndex);
  }
  poll(default_) {
    if (this.unsubscribed)
      return default_;
    if (this.subscriberIndex = Math.max(this.subscriberIndex, this.self.subscribersIndex), this.subscriberIndex !== this.self.publisherIndex) {
      let index = this.subscriberIndex % this.self.capacity, elem = this.self.array[index];
      return this.self.subscribers[index] -= 1, this.self.subscribers[index] === 0 && (this.self.array[index] = AbsentValue, this.self.subscribersIndex += 1), this.subscriberIndex += 1, elem;
    }
    return default_;
  }
  pollUpTo(n) {
    if (this.unsubscribed)
      return empty3();
    this.subscriberIndex = Math.max(this.subscriberIndex, this.self.subscribersIndex);
    let size13 = this.self.publisherIndex - this.subscriberIndex, toPoll = Math.min(n, size13);
    if (toPoll <= 0)
      return empty3();
    let builder = [], pollUpToIndex = this.subscriberIndex + toPoll;
    for (; this.subscriberIndex !== pollUpToIndex; ) {
      let index = this.subscriberIndex % this.self.capacity, a = this.self.array[index];
      this.self.subscribers[index] -= 1, this.self.subscribers[index] === 0 && (this.self.array[index] = AbsentValue, this.self.subscribersIndex += 1), builder.push(a), this.subscriberIndex += 1;
    }
    return fromIterable2(builder);
  }
  unsubscribe() {
    if (!this.unsubscribed)
      for (this.unsubscribed = !0, this.self.subscriberCount -= 1, this.subscriberIndex = Math.max(this.subscriberIndex, this.self.subscribersIndex); this.subscriberIndex !== this.self.publisherIndex; ) {
        let index = this.subscriberIndex % this.self.capacity;
        this.self.subscribers[index] -= 1, this.self.subscribers[index] === 0 && (this.self.array[index] = AbsentValue, this.self.subscribersIndex += 1), this.subscriberIndex += 1;
      }
  }
}, BoundedPubSubPow2 = class {
  capacity;
  replayBuffer;
  array;
  mask;
  publisherIndex = 0;
  subscribers;
  subscriberCount = 0;
  subscribersIndex = 0;
  constructor(capacity4, replayBuffer) {
    this.capacity = capacity4, this.replayBuffer = replayBuffer, this.array = Array.from({
      length: capacity4
    }), this.mask = capacity4 - 1, this.subscribers = Array.from({
      length: capacity4
    });
  }
  replayWindow() {
    return this.replayBuffer ? new ReplayWindowImpl(this.replayBuffer) : emptyReplayWindow;
  }
  isEmpty() {
    return this.publisherIndex === this.subscribersIndex;
  }
  isFull() {
    return this.publisherIndex === this.subscribersIndex + this.capacity;
  }
  size() {
    return this.publisherIndex - this.subscribersIndex;
  }
  publish(value2) {
    if (this.isFull())
      return !1;
    if (this.subscriberCount !== 0) {
      let index = this.publisherIndex & this.mask;
      this.array[index] = value2, this.subscribers[index] = this.subscriberCount, this.publisherIndex += 1;
    }
    return this.replayBuffer && this.replayBuffer.offer(value2), !0;
  }
  publishAll(elements) {
    if (this.subscriberCount === 0)
      return this.replayBuffer && this.replayBuffer.offerAll(elements), empty3();
    let chunk3 = fromIterable2(elements), n = chunk3.length, size13 = this.publisherIndex - this.subscribersIndex, available = this.capacity - size13, forPubSub = Math.min(n, available);
    if (forPubSub === 0)
      return chunk3;
    let iteratorIndex = 0, publishAllIndex = this.publisherIndex + forPubSub;
    for (; this.publisherIndex !== publishAllIndex; ) {
      let elem = unsafeGet2(chunk3, iteratorIndex++), index = this.publisherIndex & this.mask;
      this.array[index] = elem, this.subscribers[index] = this.subscriberCount, this.publisherIndex += 1, this.replayBuffer && this.replayBuffer.offer(elem);
    }
    return drop2(chunk3, iteratorIndex);
  }
  slide() {
    if (this.subscribersIndex !== this.publisherIndex) {
      let index = this.subscribersIndex & this.mask;
      this.array[index] = AbsentValue, this.subscribers[index] = 0, this.subscribersIndex += 1;
    }
    this.replayBuffer && this.replayBuffer.slide();
  }
  subscribe() {
    return this.subscriberCount += 1, new BoundedPubSubPow2Subscription(this, this.publisherIndex, !1);
  }
}, BoundedPubSubPow2Subscription = class {
  self;
  subscriberIndex;
  unsubscribed;
  constructor(self, subscriberIndex, unsubscribed) {
    this.self = self, this.subscriberIndex = subscriberIndex, this.unsubscribed = unsubscribed;
  }
  isEmpty() {
    return this.unsubscribed || this.self.publisherIndex === this.subscriberIndex || this.self.publisherIndex === this.self.subscribersIndex;
  }
  size() {
    return this.unsubscribed ? 0 : this.self.publisherIndex - Math.max(this.subscriberIndex, this.self.subscribersIndex);
  }
  poll(default_) {
    if (this.unsubscribed)
      return default_;
    if (this.subscriberIndex = Math.max(this.subscriberIndex, this.self.subscribersIndex), this.subscriberIndex !== this.self.publisherIndex) {
      let index = this.subscriberIndex & this.self.mask, elem = this.self.array[index];
      return this.self.subscribers[index] -= 1, this.self.subscribers[index] === 0 && (this.self.array[index] = AbsentValue, this.self.subscribersIndex += 1), this.subscriberIndex += 1, elem;
    }
    return default_;
  }
  pollUpTo(n) {
    if (this.unsubscribed)
      return empty3();
    this.subscriberIndex = Math.max(this.subscriberIndex, this.self.subscribersIndex);
    let size13 = this.self.publisherIndex - this.subscriberIndex, toPoll = Math.min(n, size13);
    if (toPoll <= 0)
      return empty3();
    let builder = [], pollUpToIndex = this.subscriberIndex + toPoll;
    for (; this.subscriberIndex !== pollUpToIndex; ) {
      let index = this.subscriberIndex & this.self.mask, elem = this.self.array[index];
      this.self.subscribers[index] -= 1, this.self.subscribers[index] === 0 && (this.self.array[index] = AbsentValue, this.self.subscribersIndex += 1), builder.push(elem), this.subscriberIndex += 1;
    }
    return fromIterable2(builder);
  }
  unsubscribe() {
    if (!this.unsubscribed)
      for (this.unsubscribed = !0, this.self.subscriberCount -= 1, this.subscriberIndex = Math.max(this.subscriberIndex, this.self.subscribersIndex); this.subscriberIndex !== this.self.publisherIndex; ) {
        let index = this.subscriberIndex & this.self.mask;
        this.self.subscribers[index] -= 1, this.self.subscribers[index] === 0 && (this.self.array[index] = AbsentValue, this.self.subscribersIndex += 1), this.subscriberIndex += 1;
      }
  }
}, BoundedPubSubSingle = class {
  replayBuffer;
  publisherIndex = 0;
  subscriberCount = 0;
  subscribers = 0;
  value = AbsentValue;
  capacity = 1;
  constructor(replayBuffer) {
    this.replayBuffer = replayBuffer;
  }
  replayWindow() {
    return this.replayBuffer ? new ReplayWindowImpl(this.replayBuffer) : emptyReplayWindow;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
  isEmpty() {
    return this.subscribers === 0;
  }
  isFull() {
    return !this.isEmpty();
  }
  size() {
    return this.isEmpty() ? 0 : 1;
  }
  publish(value2) {
    return this.isFull() ? !1 : (this.subscriberCount !== 0 && (this.value = value2, this.subscribers = this.subscriberCount, this.publisherIndex += 1), this.replayBuffer && this.replayBuffer.offer(value2), !0);
  }
  publishAll(elements) {
    if (this.subscriberCount === 0)
      return this.replayBuffer && this.replayBuffer.offerAll(elements), empty3();
    let chunk3 = fromIterable2(elements);
    return isEmpty(chunk3) ? chunk3 : this.publish(unsafeHead(chunk3)) ? drop2(chunk3, 1) : chunk3;
  }
  slide() {
    this.isFull() && (this.subscribers = 0, this.value = AbsentValue), this.replayBuffer && this.replayBuffer.slide();
  }
  subscribe() {
    return this.subscriberCount += 1, new BoundedPubSubSingleSubscription(this, this.publisherIndex, !1);
  }
}, BoundedPubSubSingleSubscription = class {
  self;
  subscriberIndex;
  unsubscribed;
  constructor(self, subscriberIndex, unsubscribed) {
    this.self = self, this.subscriberIndex = subscriberIndex, this.unsubscribed = unsubscribed;
  }
  isEmpty() {
    return this.unsubscribed || this.self.subscribers === 0 || this.subscriberIndex === this.self.publisherIndex;
  }
  size() {
    return this.isEmpty() ? 0 : 1;
  }
  poll(default_) {
    if (this.isEmpty())
      return default_;
    let elem = this.self.value;
    return this.self.subscribers -= 1, this.self.subscribers === 0 && (this.self.value = AbsentValue), this.subscriberIndex += 1, elem;
  }
  pollUpTo(n) {
    if (this.isEmpty() || n < 1)
      return empty3();
    let a = this.self.value;
    return this.self.subscribers -= 1, this.self.subscribers === 0 && (this.self.value = AbsentValue), this.subscriberIndex += 1, of2(a);
  }
  unsubscribe() {
    this.unsubscribed || (this.unsubscribed = !0, this.self.subscriberCount -= 1, this.subscriberIndex !== this.self.publisherIndex && (this.self.subscribers -= 1, this.self.subscribers === 0 && (this.self.value = AbsentValue)));
  }
};
var SubscriptionImpl = class extends Class2 {
  pubsub;
  subscribers;
  subscription;
  pollers;
  shutdownHook;
  shutdownFlag;
  strategy;
  replayWindow;
  [DequeueTypeId] = dequeueVariance;
  constructor(pubsub, subscribers, subscription, pollers, shutdownHook, shutdownFlag, strategy, replayWindow) {
    super(), this.pubsub = pubsub, this.subscribers = subscribers, this.subscription = subscription, this.pollers = pollers, this.shutdownHook = shutdownHook, this.shutdownFlag = shutdownFlag, this.strategy = strategy, this.replayWindow = replayWindow;
  }
  commit() {
    return this.take;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
  capacity() {
    return this.pubsub.capacity;
  }
  isActive() {
    return !get6(this.shutdownFlag);
  }
  get size() {
    return suspend(() => get6(this.shutdownFlag) ? interrupt2 : succeed(this.subscription.size() + this.replayWindow.remaining));
  }
  unsafeSize() {
    return get6(this.shutdownFlag) ? none2() : some2(this.subscription.size() + this.replayWindow.remaining);
  }
  get isFull() {
    return suspend(() => get6(this.shutdownFlag) ? interrupt2 : succeed(this.subscription.size() === this.capacity()));
  }
  get isEmpty() {
    return map10(this.size, (size13) => size13 === 0);
  }
  get shutdown() {
    return uninterruptible(withFiberRuntime((state) => (set2(this.shutdownFlag, !0), pipe(forEachParUnbounded(unsafePollAllQueue(this.pollers), (d) => deferredInterruptWith(d, state.id()), !1), zipRight(sync(() => {
      this.subscribers.delete(this.subscription), this.subscription.unsubscribe(), this.strategy.unsafeOnPubSubEmptySpace(this.pubsub, this.subscribers);
    })), whenEffect(deferredSucceed(this.shutdownHook, void 0)), asVoid))));
  }
  get isShutdown() {
    return sync(() => get6(this.shutdownFlag));
  }
  get awaitShutdown() {
    return deferredAwait(this.shutdownHook);
  }
  get take() {
    return withFiberRuntime((state) => {
      if (get6(this.shutdownFlag))
        return interrupt2;
      if (this.replayWindow.remaining > 0) {
        let message3 = this.replayWindow.take();
        return succeed(message3);
      }
      let message2 = isEmpty9(this.pollers) ? this.subscription.poll(EmptyMutableQueue) : EmptyMutableQueue;
      if (message2 === EmptyMutableQueue) {
        let deferred = deferredUnsafeMake(state.id());
        return pipe(suspend(() => (pipe(this.pollers, offer(deferred)), pipe(this.subscribers, addSubscribers(this.subscription, this.pollers)), this.strategy.unsafeCompletePollers(this.pubsub, this.subscribers, this.subscription, this.pollers), get6(this.shutdownFlag) ? interrupt2 : deferredAwait(deferred))), onInterrupt(() => sync(() => unsafeRemove2(this.pollers, deferred))));
      } else
        return this.strategy.unsafeOnPubSubEmptySpace(this.pubsub, this.subscribers), succeed(message2);
    });
  }
  get takeAll() {
    return suspend(() => {
      if (get6(this.shutdownFlag))
        return interrupt2;
      let as8 = isEmpty9(this.pollers) ? unsafePollAllSubscription(this.subscription) : empty3();
      return this.strategy.unsafeOnPubSubEmptySpace(this.pubsub, this.subscribers), this.replayWindow.remaining > 0 ? succeed(appendAll2(this.replayWindow.takeAll(), as8)) : succeed(as8);
    });
  }
  takeUpTo(max6) {
    return suspend(() => {
      if (get6(this.shutdownFlag))
        return interrupt2;
      let replay;
      if (this.replayWindow.remaining >= max6) {
        let as9 = this.replayWindow.takeN(max6);
        return succeed(as9);
      } else this.replayWindow.remaining > 0 && (replay = this.replayWindow.takeAll(), max6 = max6 - replay.length);
      let as8 = isEmpty9(this.pollers) ? unsafePollN2(this.subscription, max6) : empty3();
      return this.strategy.unsafeOnPubSubEmptySpace(this.pubsub, this.subscribers), replay ? succeed(appendAll2(replay, as8)) : succeed(as8);
    });
  }
  takeBetween(min4, max6) {
    return suspend(() => takeRemainderLoop2(this, min4, max6, empty3()));
  }
}, takeRemainderLoop2 = (self, min4, max6, acc) => max6 < min4 ? succeed(acc) : pipe(self.takeUpTo(max6), flatMap7((bs) => {
  let remaining = min4 - bs.length;
  return remaining === 1 ? pipe(self.take, map10((b) => pipe(acc, appendAll2(bs), append2(b)))) : remaining > 1 ? pipe(self.take, flatMap7((b) => takeRemainderLoop2(self, remaining - 1, max6 - bs.length - 1, pipe(acc, appendAll2(bs), append2(b))))) : succeed(pipe(acc, appendAll2(bs)));
})), PubSubImpl = class {
  pubsub;
  subscribers;
  scope;
  shutdownHook;
  shutdownFlag;
  strategy;
  [EnqueueTypeId] = enqueueVariance;
  [DequeueTypeId] = dequeueVariance;
  constructor(pubsub, subscribers, scope4, shutdownHook, shutdownFlag, strategy) {
    this.pubsub = pubsub, this.subscribers = subscribers, this.scope = scope4, this.shutdownHook = shutdownHook, this.shutdownFlag = shutdownFlag, this.strategy = strategy;
  }
  capacity() {
    return this.pubsub.capacity;
  }
  get size() {
    return suspend(() => get6(this.shutdownFlag) ? interrupt2 : sync(() => this.pubsub.size()));
  }
  unsafeSize() {
    return get6(this.shutdownFlag) ? none2() : some2(this.pubsub.size());
  }
  get isFull() {
    return map10(this.size, (size13) => size13 === this.capacity());
  }
  get isEmpty() {
    return map10(this.size, (size13) => size13 === 0);
  }
  get awaitShutdown() {
    return deferredAwait(this.shutdownHook);
  }
  get isShutdown() {
    return sync(() => get6(this.shutdownFlag));
  }
  get shutdown() {
    return uninterruptible(withFiberRuntime((state) => (pipe(this.shutdownFlag, set2(!0)), pipe(this.scope.close(exitInterrupt(state.id())), zipRight(this.strategy.shutdown), whenEffect(deferredSucceed(this.shutdownHook, void 0)), asVoid))));
  }
  publish(value2) {
    return suspend(() => get6(this.shutdownFlag) ? interrupt2 : this.pubsub.publish(value2) ? (this.strategy.unsafeCompleteSubscribers(this.pubsub, this.subscribers), succeed(!0)) : this.strategy.handleSurplus(this.pubsub, this.subscribers, of2(value2), this.shutdownFlag));
  }
  isActive() {
    return !get6(this.shutdownFlag);
  }
  unsafeOffer(value2) {
    return get6(this.shutdownFlag) ? !1 : this.pubsub.publish(value2) ? (this.strategy.unsafeCompleteSubscribers(this.pubsub, this.subscribers), !0) : !1;
  }
  publishAll(elements) {
    return suspend(() => {
      if (get6(this.shutdownFlag))
        return interrupt2;
      let surplus = unsafePublishAll(this.pubsub, elements);
      return this.strategy.unsafeCompleteSubscribers(this.pubsub, this.subscribers), isEmpty(surplus) ? succeed(!0) : this.strategy.handleSurplus(this.pubsub, this.subscribers, surplus, this.shutdownFlag);
    });
  }
  get subscribe() {
    let acquire = tap(all3([this.scope.fork(sequential2), makeSubscription(this.pubsub, this.subscribers, this.strategy)]), (tuple2) => tuple2[0].addFinalizer(() => tuple2[1].shutdown));
    return map10(acquireRelease(acquire, (tuple2, exit4) => tuple2[0].close(exit4)), (tuple2) => tuple2[1]);
  }
  offer(value2) {
    return this.publish(value2);
  }
  offerAll(elements) {
    return this.publishAll(elements);
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, makePubSub = (pubsub, strategy) => flatMap7(scopeMake(), (scope4) => map10(deferredMake(), (deferred) => unsafeMakePubSub(pubsub, /* @__PURE__ */ new Map(), scope4, deferred, make11(!1), strategy))), unsafeMakePubSub = (pubsub, subscribers, scope4, shutdownHook, shutdownFlag, strategy) => new PubSubImpl(pubsub, subscribers, scope4, shutdownHook, shutdownFlag, strategy), ensureCapacity = (capacity4) => {
  if (capacity4 <= 0)
    throw new InvalidPubSubCapacityException(`Cannot construct PubSub with capacity of ${capacity4}`);
}, unsafeCompleteDeferred2 = (deferred, a) => {
  deferredUnsafeDone(deferred, succeed(a));
}, unsafeOfferAll2 = (queue, as8) => pipe(queue, offerAll(as8)), unsafePollAllQueue = (queue) => pipe(queue, pollUpTo(Number.POSITIVE_INFINITY)), unsafePollAllSubscription = (subscription) => subscription.pollUpTo(Number.POSITIVE_INFINITY), unsafePollN2 = (subscription, max6) => subscription.pollUpTo(max6), unsafePublishAll = (pubsub, as8) => pubsub.publishAll(as8), unsafeRemove2 = (queue, value2) => {
  unsafeOfferAll2(queue, pipe(unsafePollAllQueue(queue), filter3((elem) => elem !== value2)));
}, BackPressureStrategy2 = class {
  publishers = /* @__PURE__ */ unbounded();
  get shutdown() {
    return flatMap7(fiberId, (fiberId2) => flatMap7(sync(() => unsafePollAllQueue(this.publishers)), (publishers) => forEachConcurrentDiscard(publishers, ([_, deferred, last6]) => last6 ? pipe(deferredInterruptWith(deferred, fiberId2), asVoid) : void_, !1, !1)));
  }
  handleSurplus(pubsub, subscribers, elements, isShutdown4) {
    return withFiberRuntime((state) => {
      let deferred = deferredUnsafeMake(state.id());
      return pipe(suspend(() => (this.unsafeOffer(elements, deferred), this.unsafeOnPubSubEmptySpace(pubsub, subscribers), this.unsafeCompleteSubscribers(pubsub, subscribers), get6(isShutdown4) ? interrupt2 : deferredAwait(deferred))), onInterrupt(() => sync(() => this.unsafeRemove(deferred))));
    });
  }
  unsafeOnPubSubEmptySpace(pubsub, subscribers) {
    let keepPolling = !0;
    for (; keepPolling && !pubsub.isFull(); ) {
      let publisher = pipe(this.publishers, poll2(EmptyMutableQueue));
      if (publisher === EmptyMutableQueue)
        keepPolling = !1;
      else {
        let published = pubsub.publish(publisher[0]);
        published && publisher[2] ? unsafeCompleteDeferred2(publisher[1], !0) : published || unsafeOfferAll2(this.publishers, pipe(unsafePollAllQueue(this.publishers), prepend2(publisher))), this.unsafeCompleteSubscribers(pubsub, subscribers);
      }
    }
  }
  unsafeCompletePollers(pubsub, subscribers, subscription, pollers) {
    return unsafeStrategyCompletePollers(this, pubsub, subscribers, subscription, pollers);
  }
  unsafeCompleteSubscribers(pubsub, subscribers) {
    return unsafeStrategyCompleteSubscribers(this, pubsub, subscribers);
  }
  unsafeOffer(elements, deferred) {
    let iterator = elements[Symbol.iterator](), next3 = iterator.next();
    if (!next3.done)
      for (; ; ) {
        let value2 = next3.value;
        if (next3 = iterator.next(), next3.done) {
          pipe(this.publishers, offer([value2, deferred, !0]));
          break;
        }
        pipe(this.publishers, offer([value2, deferred, !1]));
      }
  }
  unsafeRemove(deferred) {
    unsafeOfferAll2(this.publishers, pipe(unsafePollAllQueue(this.publishers), filter3(([_, a]) => a !== deferred)));
  }
};
var unsafeStrategyCompletePollers = (strategy, pubsub, subscribers, subscription, pollers) => {
  let keepPolling = !0;
  for (; keepPolling && !subscription.isEmpty(); ) {
    let poller = pipe(pollers, poll2(EmptyMutableQueue));
    if (poller === EmptyMutableQueue)
      pipe(subscribers, removeSubscribers(subscription, pollers)), isEmpty9(pollers) ? keepPolling = !1 : pipe(subscribers, addSubscribers(subscription, pollers));
    else {
      let pollResult = subscription.poll(EmptyMutableQueue);
      pollResult === EmptyMutableQueue ? unsafeOfferAll2(pollers, pipe(unsafePollAllQueue(pollers), prepend2(poller))) : (unsafeCompleteDeferred2(poller, pollResult), strategy.unsafeOnPubSubEmptySpace(pubsub, subscribers));
    }
  }
}, unsafeStrategyCompleteSubscribers = (strategy, pubsub, subscribers) => {
  for (let [subscription, pollersSet] of subscribers)
    for (let pollers of pollersSet)
      strategy.unsafeCompletePollers(pubsub, subscribers, subscription, pollers);
}, ReplayBuffer = class {
  capacity;
  constructor(capacity4) {
    this.capacity = capacity4;
  }
  head = {
    value: AbsentValue,
    next: null
  };
  tail = this.head;
  size = 0;
  index = 0;
  slide() {
    this.index++;
  }
  offer(a) {
    this.tail.value = a, this.tail.next = {
      value: AbsentValue,
      next: null
    }, this.tail = this.tail.next, this.size === this.capacity ? this.head = this.head.next : this.size += 1;
  }
  offerAll(as8) {
    for (let a of as8)
      this.offer(a);
  }
}, ReplayWindowImpl = class {
  buffer;
  head;
  index;
  remaining;
  constructor(buffer2) {
    this.buffer = buffer2, this.index = buffer2.index, this.remaining = buffer2.size, this.head = buffer2.head;
  }
  fastForward() {
    for (; this.index < this.buffer.index; )
      this.head = this.head.next, this.index++;
  }
  take() {
    if (this.remaining === 0)
      return;
    this.index < this.buffer.index && this.fastForward(), this.remaining--;
    let value2 = this.head.value;
    return this.head = this.head.next, value2;
  }
  takeN(n) {
    if (this.remaining === 0)
      return empty3();
    this.index < this.buffer.index && this.fastForward();
    let len = Math.min(n, this.remaining), items = new Array(len);
    for (let i = 0; i < len; i++) {
      let value2 = this.head.value;
      this.head = this.head.next, items[i] = value2;
    }
    return this.remaining -= len, unsafeFromArray(items);
  }
  takeAll() {
    return this.takeN(this.remaining);
  }
}, emptyReplayWindow = {
  remaining: 0,
  take: () => {
  },
  takeN: () => empty3(),
  takeAll: () => empty3()
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/PubSub.js
var bounded5 = bounded4;
var shutdown4 = shutdown3;
var publishAll2 = publishAll, subscribe2 = subscribe;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/channelChildExecutorDecision.js
var OP_CONTINUE2 = "Continue", OP_CLOSE = "Close", OP_YIELD2 = "Yield";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/childExecutorDecision.js
var ChildExecutorDecisionSymbolKey = "effect/ChannelChildExecutorDecision", ChildExecutorDecisionTypeId = /* @__PURE__ */ Symbol.for(ChildExecutorDecisionSymbolKey), proto5 = {
  [ChildExecutorDecisionTypeId]: ChildExecutorDecisionTypeId
}, Continue = (_) => {
  let op = Object.create(proto5);
  return op._tag = OP_CONTINUE2, op;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/continuation.js
var OP_CONTINUATION_K = "ContinuationK", OP_CONTINUATION_FINALIZER = "ContinuationFinalizer";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/continuation.js
var ContinuationTypeId = /* @__PURE__ */ Symbol.for("effect/ChannelContinuation"), continuationVariance = {
  /* c8 ignore next */
  _Env: (_) => _,
  /* c8 ignore next */
  _InErr: (_) => _,
  /* c8 ignore next */
  _InElem: (_) => _,
  /* c8 ignore next */
  _InDone: (_) => _,
  /* c8 ignore next */
  _OutErr: (_) => _,
  /* c8 ignore next */
  _OutDone: (_) => _,
  /* c8 ignore next */
  _OutErr2: (_) => _,
  /* c8 ignore next */
  _OutElem: (_) => _,
  /* c8 ignore next */
  _OutDone2: (_) => _
}, ContinuationKImpl = class {
  onSuccess;
  onHalt;
  _tag = OP_CONTINUATION_K;
  [ContinuationTypeId] = continuationVariance;
  constructor(onSuccess, onHalt) {
    this.onSuccess = onSuccess, this.onHalt = onHalt;
  }
  onExit(exit4) {
    return isFailure(exit4) ? this.onHalt(exit4.cause) : this.onSuccess(exit4.value);
  }
}, ContinuationFinalizerImpl = class {
  finalizer;
  _tag = OP_CONTINUATION_FINALIZER;
  [ContinuationTypeId] = continuationVariance;
  constructor(finalizer2) {
    this.finalizer = finalizer2;
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/channelUpstreamPullStrategy.js
var OP_PULL_AFTER_NEXT = "PullAfterNext", OP_PULL_AFTER_ALL_ENQUEUED = "PullAfterAllEnqueued";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/upstreamPullStrategy.js
var UpstreamPullStrategySymbolKey = "effect/ChannelUpstreamPullStrategy", UpstreamPullStrategyTypeId = /* @__PURE__ */ Symbol.for(UpstreamPullStrategySymbolKey), upstreamPullStrategyVariance = {
  /* c8 ignore next */
  _A: (_) => _
}, proto6 = {
  [UpstreamPullStrategyTypeId]: upstreamPullStrategyVariance
}, PullAfterNext = (emitSeparator) => {
  let op = Object.create(proto6);
  return op._tag = OP_PULL_AFTER_NEXT, op.emitSeparator = emitSeparator, op;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/channel.js
var OP_BRACKET_OUT = "BracketOut", OP_BRIDGE = "Bridge", OP_CONCAT_ALL = "ConcatAll", OP_EMIT = "Emit", OP_ENSURING = "Ensuring", OP_FAIL3 = "Fail", OP_FOLD2 = "Fold", OP_FROM_EFFECT2 = "FromEffect", OP_PIPE_TO = "PipeTo", OP_PROVIDE2 = "Provide", OP_READ = "Read", OP_SUCCEED = "Succeed", OP_SUCCEED_NOW = "SucceedNow", OP_SUSPEND2 = "Suspend";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/core-stream.js
var ChannelSymbolKey = "effect/Channel", ChannelTypeId2 = /* @__PURE__ */ Symbol.for(ChannelSymbolKey), channelVariance2 = {
  /* c8 ignore next */
  _Env: (_) => _,
  /* c8 ignore next */
  _InErr: (_) => _,
  /* c8 ignore next */
  _InElem: (_) => _,
  /* c8 ignore next */
  _InDone: (_) => _,
  /* c8 ignore next */
  _OutErr: (_) => _,
  /* c8 ignore next */
  _OutElem: (_) => _,
  /* c8 ignore next */
  _OutDone: (_) => _
}, proto7 = {
  [ChannelTypeId2]: channelVariance2,
  pipe() {
    return pipeArguments(this, arguments);
  }
}, isChannel = (u) => hasProperty(u, ChannelTypeId2) || isEffect2(u), acquireReleaseOut = /* @__PURE__ */ dual(2, (self, release2) => {
  let op = Object.create(proto7);
  return op._tag = OP_BRACKET_OUT, op.acquire = () => self, op.finalizer = release2, op;
});
var concatAllWith = (channels, f, g) => {
  let op = Object.create(proto7);
  return op._tag = OP_CONCAT_ALL, op.combineInners = f, op.combineAll = g, op.onPull = () => PullAfterNext(none2()), op.onEmit = () => Continue, op.value = () => channels, op.k = identity, op;
}, concatMapWith = /* @__PURE__ */ dual(4, (self, f, g, h) => {
  let op = Object.create(proto7);
  return op._tag = OP_CONCAT_ALL, op.combineInners = g, op.combineAll = h, op.onPull = () => PullAfterNext(none2()), op.onEmit = () => Continue, op.value = () => self, op.k = f, op;
});
var embedInput = /* @__PURE__ */ dual(2, (self, input2) => {
  let op = Object.create(proto7);
  return op._tag = OP_BRIDGE, op.input = input2, op.channel = self, op;
}), ensuringWith = /* @__PURE__ */ dual(2, (self, finalizer2) => {
  let op = Object.create(proto7);
  return op._tag = OP_ENSURING, op.channel = self, op.finalizer = finalizer2, op;
}), fail10 = (error) => failCause8(fail4(error));
var failCause8 = (cause2) => failCauseSync3(() => cause2), failCauseSync3 = (evaluate2) => {
  let op = Object.create(proto7);
  return op._tag = OP_FAIL3, op.error = evaluate2, op;
}, flatMap12 = /* @__PURE__ */ dual(2, (self, f) => {
  let op = Object.create(proto7);
  return op._tag = OP_FOLD2, op.channel = self, op.k = new ContinuationKImpl(f, failCause8), op;
});
var fromEffect4 = (effect3) => {
  let op = Object.create(proto7);
  return op._tag = OP_FROM_EFFECT2, op.effect = () => effect3, op;
}, pipeTo = /* @__PURE__ */ dual(2, (self, that) => {
  let op = Object.create(proto7);
  return op._tag = OP_PIPE_TO, op.left = () => self, op.right = () => that, op;
});
var readWith = (options) => readWithCause({
  onInput: options.onInput,
  onFailure: (cause2) => match(failureOrCause2(cause2), {
    onLeft: options.onFailure,
    onRight: failCause8
  }),
  onDone: options.onDone
}), readWithCause = (options) => {
  let op = Object.create(proto7);
  return op._tag = OP_READ, op.more = options.onInput, op.done = new ContinuationKImpl(options.onDone, options.onFailure), op;
}, succeed11 = (value2) => sync7(() => value2), succeedNow = (result) => {
  let op = Object.create(proto7);
  return op._tag = OP_SUCCEED_NOW, op.terminal = result, op;
}, suspend7 = (evaluate2) => {
  let op = Object.create(proto7);
  return op._tag = OP_SUSPEND2, op.channel = evaluate2, op;
}, sync7 = (evaluate2) => {
  let op = Object.create(proto7);
  return op._tag = OP_SUCCEED, op.evaluate = evaluate2, op;
}, void_5 = /* @__PURE__ */ succeedNow(void 0);
var write = (out) => {
  let op = Object.create(proto7);
  return op._tag = OP_EMIT, op.out = out, op;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/channelState.js
var OP_DONE3 = "Done", OP_EMIT2 = "Emit", OP_FROM_EFFECT3 = "FromEffect", OP_READ2 = "Read";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/channelState.js
var ChannelStateTypeId = /* @__PURE__ */ Symbol.for("effect/ChannelState"), channelStateVariance = {
  /* c8 ignore next */
  _E: (_) => _,
  /* c8 ignore next */
  _R: (_) => _
}, proto8 = {
  [ChannelStateTypeId]: channelStateVariance
}, Done2 = () => {
  let op = Object.create(proto8);
  return op._tag = OP_DONE3, op;
}, Emit = () => {
  let op = Object.create(proto8);
  return op._tag = OP_EMIT2, op;
}, fromEffect5 = (effect3) => {
  let op = Object.create(proto8);
  return op._tag = OP_FROM_EFFECT3, op.effect = effect3, op;
}, Read = (upstream, onEffect, onEmit, onDone2) => {
  let op = Object.create(proto8);
  return op._tag = OP_READ2, op.upstream = upstream, op.onEffect = onEffect, op.onEmit = onEmit, op.onDone = onDone2, op;
};
var isFromEffect = (self) => self._tag === OP_FROM_EFFECT3;
var effect2 = (self) => isFromEffect(self) ? self.effect : _void, effectOrUndefinedIgnored = (self) => isFromEffect(self) ? ignore2(self.effect) : void 0;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/subexecutor.js
var OP_PULL_FROM_CHILD = "PullFromChild", OP_PULL_FROM_UPSTREAM = "PullFromUpstream", OP_DRAIN_CHILD_EXECUTORS = "DrainChildExecutors", OP_EMIT3 = "Emit", PullFromChild = class {
  childExecutor;
  parentSubexecutor;
  onEmit;
  _tag = OP_PULL_FROM_CHILD;
  constructor(childExecutor, parentSubexecutor, onEmit) {
    this.childExecutor = childExecutor, this.parentSubexecutor = parentSubexecutor, this.onEmit = onEmit;
  }
  close(exit4) {
    let fin1 = this.childExecutor.close(exit4), fin2 = this.parentSubexecutor.close(exit4);
    return fin1 !== void 0 && fin2 !== void 0 ? zipWith3(exit3(fin1), exit3(fin2), (exit1, exit22) => pipe(exit1, zipRight2(exit22))) : fin1 !== void 0 ? fin1 : fin2 !== void 0 ? fin2 : void 0;
  }
  enqueuePullFromChild(_child) {
    return this;
  }
}, PullFromUpstream = class _PullFromUpstream {
  upstreamExecutor;
  createChild;
  lastDone;
  activeChildExecutors;
  combineChildResults;
  combineWithChildResult;
  onPull;
  onEmit;
  _tag = OP_PULL_FROM_UPSTREAM;
  constructor(upstreamExecutor, createChild, lastDone, activeChildExecutors, combineChildResults, combineWithChildResult, onPull, onEmit) {
    this.upstreamExecutor = upstreamExecutor, this.createChild = createChild, this.lastDone = lastDone, this.activeChildExecutors = activeChildExecutors, this.combineChildResults = combineChildResults, this.combineWithChildResult = combineWithChildResult, this.onPull = onPull, this.onEmit = onEmit;
  }
  close(exit4) {
    let fin1 = this.upstreamExecutor.close(exit4), result = [...this.activeChildExecutors.map((child) => child !== void 0 ? child.childExecutor.close(exit4) : void 0), fin1].reduce((acc, next3) => acc !== void 0 && next3 !== void 0 ? zipWith3(acc, exit3(next3), (exit1, exit22) => zipRight2(exit1, exit22)) : acc !== void 0 ? acc : next3 !== void 0 ? exit3(next3) : void 0, void 0);
    return result;
  }
  enqueuePullFromChild(child) {
    return new _PullFromUpstream(this.upstreamExecutor, this.createChild, this.lastDone, [...this.activeChildExecutors, child], this.combineChildResults, this.combineWithChildResult, this.onPull, this.onEmit);
  }
}, DrainChildExecutors = class _DrainChildExecutors {
  upstreamExecutor;
  lastDone;
  activeChildExecutors;
  upstreamDone;
  combineChildResults;
  combineWithChildResult;
  onPull;
  _tag = OP_DRAIN_CHILD_EXECUTORS;
  constructor(upstreamExecutor, lastDone, activeChildExecutors, upstreamDone, combineChildResults, combineWithChildResult, onPull) {
    this.upstreamExecutor = upstreamExecutor, this.lastDone = lastDone, this.activeChildExecutors = activeChildExecutors, this.upstreamDone = upstreamDone, this.combineChildResults = combineChildResults, this.combineWithChildResult = combineWithChildResult, this.onPull = onPull;
  }
  close(exit4) {
    let fin1 = this.upstreamExecutor.close(exit4), result = [...this.activeChildExecutors.map((child) => child !== void 0 ? child.childExecutor.close(exit4) : void 0), fin1].reduce((acc, next3) => acc !== void 0 && next3 !== void 0 ? zipWith3(acc, exit3(next3), (exit1, exit22) => zipRight2(exit1, exit22)) : acc !== void 0 ? acc : next3 !== void 0 ? exit3(next3) : void 0, void 0);
    return result;
  }
  enqueuePullFromChild(child) {
    return new _DrainChildExecutors(this.upstreamExecutor, this.lastDone, [...this.activeChildExecutors, child], this.upstreamDone, this.combineChildResults, this.combineWithChildResult, this.onPull);
  }
}, Emit2 = class {
  value;
  next;
  _tag = OP_EMIT3;
  constructor(value2, next3) {
    this.value = value2, this.next = next3;
  }
  close(exit4) {
    let result = this.next.close(exit4);
    return result;
  }
  enqueuePullFromChild(_child) {
    return this;
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/channelUpstreamPullRequest.js
var OP_PULLED = "Pulled", OP_NO_UPSTREAM = "NoUpstream";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/upstreamPullRequest.js
var UpstreamPullRequestSymbolKey = "effect/ChannelUpstreamPullRequest", UpstreamPullRequestTypeId = /* @__PURE__ */ Symbol.for(UpstreamPullRequestSymbolKey), upstreamPullRequestVariance = {
  /* c8 ignore next */
  _A: (_) => _
}, proto9 = {
  [UpstreamPullRequestTypeId]: upstreamPullRequestVariance
}, Pulled = (value2) => {
  let op = Object.create(proto9);
  return op._tag = OP_PULLED, op.value = value2, op;
}, NoUpstream = (activeDownstreamCount) => {
  let op = Object.create(proto9);
  return op._tag = OP_NO_UPSTREAM, op.activeDownstreamCount = activeDownstreamCount, op;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/channelExecutor.js
var ChannelExecutor = class _ChannelExecutor {
  _activeSubexecutor = void 0;
  _cancelled = void 0;
  _closeLastSubstream = void 0;
  _currentChannel;
  _done = void 0;
  _doneStack = [];
  _emitted = void 0;
  _executeCloseLastSubstream;
  _input = void 0;
  _inProgressFinalizer = void 0;
  _providedEnv;
  constructor(initialChannel, providedEnv, executeCloseLastSubstream) {
    this._currentChannel = initialChannel, this._executeCloseLastSubstream = executeCloseLastSubstream, this._providedEnv = providedEnv;
  }
  run() {
    let result;
    for (; result === void 0; )
      if (this._cancelled !== void 0)
        result = this.processCancellation();
      else if (this._activeSubexecutor !== void 0)
        result = this.runSubexecutor();
      else
        try {
          if (this._currentChannel === void 0)
            result = Done2();
          else
            switch (isEffect2(this._currentChannel) && (this._currentChannel = fromEffect4(this._currentChannel)), this._currentChannel._tag) {
              case OP_BRACKET_OUT: {
                result = this.runBracketOut(this._currentChannel);
                break;
              }
              case OP_BRIDGE: {
                let bridgeInput = this._currentChannel.input;
                if (this._currentChannel = this._currentChannel.channel, this._input !== void 0) {
                  let inputExecutor = this._input;
                  this._input = void 0;
                  let drainer = () => flatMap9(bridgeInput.awaitRead(), () => suspend3(() => {
                    let state = inputExecutor.run();
                    switch (state._tag) {
                      case OP_DONE3:
                        return match9(inputExecutor.getDone(), {
                          onFailure: (cause2) => bridgeInput.error(cause2),
                          onSuccess: (value2) => bridgeInput.done(value2)
                        });
                      case OP_EMIT2:
                        return flatMap9(bridgeInput.emit(inputExecutor.getEmit()), () => drainer());
                      case OP_FROM_EFFECT3:
                        return matchCauseEffect3(state.effect, {
                          onFailure: (cause2) => bridgeInput.error(cause2),
                          onSuccess: () => drainer()
                        });
                      case OP_READ2:
                        return readUpstream(state, () => drainer(), (cause2) => bridgeInput.error(cause2));
                    }
                  }));
                  result = fromEffect5(flatMap9(forkDaemon2(interruptible4(drainer())), (fiber) => sync4(() => this.addFinalizer((exit4) => flatMap9(interrupt5(fiber), () => suspend3(() => {
                    let effect3 = this.restorePipe(exit4, inputExecutor);
                    return effect3 !== void 0 ? effect3 : _void;
                  }))))));
                }
                break;
              }
              case OP_CONCAT_ALL: {
                let executor = new _ChannelExecutor(this._currentChannel.value(), this._providedEnv, (effect3) => sync4(() => {
                  let prevLastClose = this._closeLastSubstream === void 0 ? _void : this._closeLastSubstream;
                  this._closeLastSubstream = pipe(prevLastClose, zipRight3(effect3));
                }));
                executor._input = this._input;
                let channel = this._currentChannel;
                this._activeSubexecutor = new PullFromUpstream(executor, (value2) => channel.k(value2), void 0, [], (x, y) => channel.combineInners(x, y), (x, y) => channel.combineAll(x, y), (request) => channel.onPull(request), (value2) => channel.onEmit(value2)), this._closeLastSubstream = void 0, this._currentChannel = void 0;
                break;
              }
              case OP_EMIT: {
                this._emitted = this._currentChannel.out, this._currentChannel = this._activeSubexecutor !== void 0 ? void 0 : void_5, result = Emit();
                break;
              }
              case OP_ENSURING: {
                this.runEnsuring(this._currentChannel);
                break;
              }
              case OP_FAIL3: {
                result = this.doneHalt(this._currentChannel.error());
                break;
              }
              case OP_FOLD2: {
                this._doneStack.push(this._currentChannel.k), this._currentChannel = this._currentChannel.channel;
                break;
              }
              case OP_FROM_EFFECT2: {
                let effect3 = this._providedEnv === void 0 ? this._currentChannel.effect() : pipe(this._currentChannel.effect(), provide2(this._providedEnv));
                result = fromEffect5(matchCauseEffect3(effect3, {
                  onFailure: (cause2) => {
                    let state = this.doneHalt(cause2);
                    return state !== void 0 && isFromEffect(state) ? state.effect : _void;
                  },
                  onSuccess: (value2) => {
                    let state = this.doneSucceed(value2);
                    return state !== void 0 && isFromEffect(state) ? state.effect : _void;
                  }
                }));
                break;
              }
              case OP_PIPE_TO: {
                let previousInput = this._input, leftExec = new _ChannelExecutor(this._currentChannel.left(), this._providedEnv, (effect3) => this._executeCloseLastSubstream(effect3));
                leftExec._input = previousInput, this._input = leftExec, this.addFinalizer((exit4) => {
                  let effect3 = this.restorePipe(exit4, previousInput);
                  return effect3 !== void 0 ? effect3 : _void;
                }), this._currentChannel = this._currentChannel.right();
                break;
              }
              case OP_PROVIDE2: {
                let previousEnv = this._providedEnv;
                this._providedEnv = this._currentChannel.context(), this._currentChannel = this._currentChannel.inner, this.addFinalizer(() => sync4(() => {
                  this._providedEnv = previousEnv;
                }));
                break;
              }
              case OP_READ: {
                let read = this._currentChannel;
                result = Read(this._input, identity, (emitted) => {
                  try {
                    this._currentChannel = read.more(emitted);
                  } catch (error) {
                    this._currentChannel = read.done.onExit(die3(error));
                  }
                }, (exit4) => {
                  let onExit4 = (exit5) => read.done.onExit(exit5);
                  this._currentChannel = onExit4(exit4);
                });
                break;
              }
              case OP_SUCCEED: {
                result = this.doneSucceed(this._currentChannel.evaluate());
                break;
              }
              case OP_SUCCEED_NOW: {
                result = this.doneSucceed(this._currentChannel.terminal);
                break;
              }
              case OP_SUSPEND2: {
                this._currentChannel = this._currentChannel.channel();
                break;
              }
            }
        } catch (error) {
          this._currentChannel = failCause8(die4(error));
        }
    return result;
  }
  getDone() {
    return this._done;
  }
  getEmit() {
    return this._emitted;
  }
  cancelWith(exit4) {
    this._cancelled = exit4;
  }
  clearInProgressFinalizer() {
    this._inProgressFinalizer = void 0;
  }
  storeInProgressFinalizer(finalizer2) {
    this._inProgressFinalizer = finalizer2;
  }
  popAllFinalizers(exit4) {
    let finalizers = [], next3 = this._doneStack.pop();
    for (; next3; )
      next3._tag === "ContinuationFinalizer" && finalizers.push(next3.finalizer), next3 = this._doneStack.pop();
    let effect3 = finalizers.length === 0 ? _void : runFinalizers(finalizers, exit4);
    return this.storeInProgressFinalizer(effect3), effect3;
  }
  popNextFinalizers() {
    let builder = [];
    for (; this._doneStack.length !== 0; ) {
      let cont = this._doneStack[this._doneStack.length - 1];
      if (cont._tag === OP_CONTINUATION_K)
        return builder;
      builder.push(cont), this._doneStack.pop();
    }
    return builder;
  }
  restorePipe(exit4, prev) {
    let currInput = this._input;
    return this._input = prev, currInput !== void 0 ? currInput.close(exit4) : _void;
  }
  close(exit4) {
    let runInProgressFinalizers, finalizer2 = this._inProgressFinalizer;
    finalizer2 !== void 0 && (runInProgressFinalizers = pipe(finalizer2, ensuring2(sync4(() => this.clearInProgressFinalizer()))));
    let closeSelf, selfFinalizers = this.popAllFinalizers(exit4);
    selfFinalizers !== void 0 && (closeSelf = pipe(selfFinalizers, ensuring2(sync4(() => this.clearInProgressFinalizer()))));
    let closeSubexecutors = this._activeSubexecutor === void 0 ? void 0 : this._activeSubexecutor.close(exit4);
    if (!(closeSubexecutors === void 0 && runInProgressFinalizers === void 0 && closeSelf === void 0))
      return pipe(
        exit3(ifNotNull(closeSubexecutors)),
        zip5(exit3(ifNotNull(runInProgressFinalizers))),
        zip5(exit3(ifNotNull(closeSelf))),
        map16(([[exit1, exit22], exit32]) => pipe(exit1, zipRight2(exit22), zipRight2(exit32))),
        uninterruptible2,
        // TODO: remove
        flatMap9((exit5) => suspend3(() => exit5))
      );
  }
  doneSucceed(value2) {
    if (this._doneStack.length === 0)
      return this._done = succeed3(value2), this._currentChannel = void 0, Done2();
    let head5 = this._doneStack[this._doneStack.length - 1];
    if (head5._tag === OP_CONTINUATION_K) {
      this._doneStack.pop(), this._currentChannel = head5.onSuccess(value2);
      return;
    }
    let finalizers = this.popNextFinalizers();
    if (this._doneStack.length === 0)
      return this._doneStack = finalizers.reverse(), this._done = succeed3(value2), this._currentChannel = void 0, Done2();
    let finalizerEffect = runFinalizers(finalizers.map((f) => f.finalizer), succeed3(value2));
    this.storeInProgressFinalizer(finalizerEffect);
    let effect3 = pipe(finalizerEffect, ensuring2(sync4(() => this.clearInProgressFinalizer())), uninterruptible2, flatMap9(() => sync4(() => this.doneSucceed(value2))));
    return fromEffect5(effect3);
  }
  doneHalt(cause2) {
    if (this._doneStack.length === 0)
      return this._done = failCause3(cause2), this._currentChannel = void 0, Done2();
    let head5 = this._doneStack[this._doneStack.length - 1];
    if (head5._tag === OP_CONTINUATION_K) {
      this._doneStack.pop();
      try {
        this._currentChannel = head5.onHalt(cause2);
      } catch (error) {
        this._currentChannel = failCause8(die4(error));
      }
      return;
    }
    let finalizers = this.popNextFinalizers();
    if (this._doneStack.length === 0)
      return this._doneStack = finalizers.reverse(), this._done = failCause3(cause2), this._currentChannel = void 0, Done2();
    let finalizerEffect = runFinalizers(finalizers.map((f) => f.finalizer), failCause3(cause2));
    this.storeInProgressFinalizer(finalizerEffect);
    let effect3 = pipe(finalizerEffect, ensuring2(sync4(() => this.clearInProgressFinalizer())), uninterruptible2, flatMap9(() => sync4(() => this.doneHalt(cause2))));
    return fromEffect5(effect3);
  }
  processCancellation() {
    return this._currentChannel = void 0, this._done = this._cancelled, this._cancelled = void 0, Done2();
  }
  runBracketOut(bracketOut) {
    let effect3 = uninterruptible2(matchCauseEffect3(this.provide(bracketOut.acquire()), {
      onFailure: (cause2) => sync4(() => {
        this._currentChannel = failCause8(cause2);
      }),
      onSuccess: (out) => sync4(() => {
        this.addFinalizer((exit4) => this.provide(bracketOut.finalizer(out, exit4))), this._currentChannel = write(out);
      })
    }));
    return fromEffect5(effect3);
  }
  provide(effect3) {
    return this._providedEnv === void 0 ? effect3 : pipe(effect3, provide2(this._providedEnv));
  }
  runEnsuring(ensuring6) {
    this.addFinalizer(ensuring6.finalizer), this._currentChannel = ensuring6.channel;
  }
  addFinalizer(f) {
    this._doneStack.push(new ContinuationFinalizerImpl(f));
  }
  runSubexecutor() {
    let subexecutor = this._activeSubexecutor;
    switch (subexecutor._tag) {
      case OP_PULL_FROM_CHILD:
        return this.pullFromChild(subexecutor.childExecutor, subexecutor.parentSubexecutor, subexecutor.onEmit, subexecutor);
      case OP_PULL_FROM_UPSTREAM:
        return this.pullFromUpstream(subexecutor);
      case OP_DRAIN_CHILD_EXECUTORS:
        return this.drainChildExecutors(subexecutor);
      case OP_EMIT3:
        return this._emitted = subexecutor.value, this._activeSubexecutor = subexecutor.next, Emit();
    }
  }
  replaceSubexecutor(nextSubExec) {
    this._currentChannel = void 0, this._activeSubexecutor = nextSubExec;
  }
  finishWithExit(exit4) {
    let state = match9(exit4, {
      onFailure: (cause2) => this.doneHalt(cause2),
      onSuccess: (value2) => this.doneSucceed(value2)
    });
    return this._activeSubexecutor = void 0, state === void 0 ? _void : effect2(state);
  }
  finishSubexecutorWithCloseEffect(subexecutorDone, ...closeFuncs) {
    this.addFinalizer(() => pipe(closeFuncs, forEach7((closeFunc) => pipe(sync4(() => closeFunc(subexecutorDone)), flatMap9((closeEffect) => closeEffect !== void 0 ? closeEffect : _void)), {
      discard: !0
    })));
    let state = pipe(subexecutorDone, match9({
      onFailure: (cause2) => this.doneHalt(cause2),
      onSuccess: (value2) => this.doneSucceed(value2)
    }));
    return this._activeSubexecutor = void 0, state;
  }
  applyUpstreamPullStrategy(upstreamFinished, queue, strategy) {
    switch (strategy._tag) {
      case OP_PULL_AFTER_NEXT: {
        let shouldPrepend = !upstreamFinished || queue.some((subexecutor) => subexecutor !== void 0);
        return [strategy.emitSeparator, shouldPrepend ? [void 0, ...queue] : queue];
      }
      case OP_PULL_AFTER_ALL_ENQUEUED: {
        let shouldEnqueue = !upstreamFinished || queue.some((subexecutor) => subexecutor !== void 0);
        return [strategy.emitSeparator, shouldEnqueue ? [...queue, void 0] : queue];
      }
    }
  }
  pullFromChild(childExecutor, parentSubexecutor, onEmitted, subexecutor) {
    return Read(childExecutor, identity, (emitted) => {
      let childExecutorDecision = onEmitted(emitted);
      switch (childExecutorDecision._tag) {
        case OP_CONTINUE2:
          break;
        case OP_CLOSE: {
          this.finishWithDoneValue(childExecutor, parentSubexecutor, childExecutorDecision.value);
          break;
        }
        case OP_YIELD2: {
          let modifiedParent = parentSubexecutor.enqueuePullFromChild(subexecutor);
          this.replaceSubexecutor(modifiedParent);
          break;
        }
      }
      this._activeSubexecutor = new Emit2(emitted, this._activeSubexecutor);
    }, match9({
      onFailure: (cause2) => {
        let state = this.handleSubexecutorFailure(childExecutor, parentSubexecutor, cause2);
        return state === void 0 ? void 0 : effectOrUndefinedIgnored(state);
      },
      onSuccess: (doneValue) => {
        this.finishWithDoneValue(childExecutor, parentSubexecutor, doneValue);
      }
    }));
  }
  finishWithDoneValue(childExecutor, parentSubexecutor, doneValue) {
    let subexecutor = parentSubexecutor;
    switch (subexecutor._tag) {
      case OP_PULL_FROM_UPSTREAM: {
        let modifiedParent = new PullFromUpstream(subexecutor.upstreamExecutor, subexecutor.createChild, subexecutor.lastDone !== void 0 ? subexecutor.combineChildResults(subexecutor.lastDone, doneValue) : doneValue, subexecutor.activeChildExecutors, subexecutor.combineChildResults, subexecutor.combineWithChildResult, subexecutor.onPull, subexecutor.onEmit);
        this._closeLastSubstream = childExecutor.close(succeed3(doneValue)), this.replaceSubexecutor(modifiedParent);
        break;
      }
      case OP_DRAIN_CHILD_EXECUTORS: {
        let modifiedParent = new DrainChildExecutors(subexecutor.upstreamExecutor, subexecutor.lastDone !== void 0 ? subexecutor.combineChildResults(subexecutor.lastDone, doneValue) : doneValue, subexecutor.activeChildExecutors, subexecutor.upstreamDone, subexecutor.combineChildResults, subexecutor.combineWithChildResult, subexecutor.onPull);
        this._closeLastSubstream = childExecutor.close(succeed3(doneValue)), this.replaceSubexecutor(modifiedParent);
        break;
      }
      default:
        break;
    }
  }
  handleSubexecutorFailure(childExecutor, parentSubexecutor, cause2) {
    return this.finishSubexecutorWithCloseEffect(failCause3(cause2), (exit4) => parentSubexecutor.close(exit4), (exit4) => childExecutor.close(exit4));
  }
  pullFromUpstream(subexecutor) {
    if (subexecutor.activeChildExecutors.length === 0)
      return this.performPullFromUpstream(subexecutor);
    let activeChild = subexecutor.activeChildExecutors[0], parentSubexecutor = new PullFromUpstream(subexecutor.upstreamExecutor, subexecutor.createChild, subexecutor.lastDone, subexecutor.activeChildExecutors.slice(1), subexecutor.combineChildResults, subexecutor.combineWithChildResult, subexecutor.onPull, subexecutor.onEmit);
    if (activeChild === void 0)
      return this.performPullFromUpstream(parentSubexecutor);
    this.replaceSubexecutor(new PullFromChild(activeChild.childExecutor, parentSubexecutor, activeChild.onEmit));
  }
  performPullFromUpstream(subexecutor) {
    return Read(subexecutor.upstreamExecutor, (effect3) => {
      let closeLastSubstream = this._closeLastSubstream === void 0 ? _void : this._closeLastSubstream;
      return this._closeLastSubstream = void 0, pipe(this._executeCloseLastSubstream(closeLastSubstream), zipRight3(effect3));
    }, (emitted) => {
      if (this._closeLastSubstream !== void 0) {
        let closeLastSubstream = this._closeLastSubstream;
        return this._closeLastSubstream = void 0, pipe(this._executeCloseLastSubstream(closeLastSubstream), map16(() => {
          let childExecutor2 = new _ChannelExecutor(subexecutor.createChild(emitted), this._providedEnv, this._executeCloseLastSubstream);
          childExecutor2._input = this._input;
          let [emitSeparator2, updatedChildExecutors2] = this.applyUpstreamPullStrategy(!1, subexecutor.activeChildExecutors, subexecutor.onPull(Pulled(emitted)));
          this._activeSubexecutor = new PullFromChild(childExecutor2, new PullFromUpstream(subexecutor.upstreamExecutor, subexecutor.createChild, subexecutor.lastDone, updatedChildExecutors2, subexecutor.combineChildResults, subexecutor.combineWithChildResult, subexecutor.onPull, subexecutor.onEmit), subexecutor.onEmit), isSome2(emitSeparator2) && (this._activeSubexecutor = new Emit2(emitSeparator2.value, this._activeSubexecutor));
        }));
      }
      let childExecutor = new _ChannelExecutor(subexecutor.createChild(emitted), this._providedEnv, this._executeCloseLastSubstream);
      childExecutor._input = this._input;
      let [emitSeparator, updatedChildExecutors] = this.applyUpstreamPullStrategy(!1, subexecutor.activeChildExecutors, subexecutor.onPull(Pulled(emitted)));
      this._activeSubexecutor = new PullFromChild(childExecutor, new PullFromUpstream(subexecutor.upstreamExecutor, subexecutor.createChild, subexecutor.lastDone, updatedChildExecutors, subexecutor.combineChildResults, subexecutor.combineWithChildResult, subexecutor.onPull, subexecutor.onEmit), subexecutor.onEmit), isSome2(emitSeparator) && (this._activeSubexecutor = new Emit2(emitSeparator.value, this._activeSubexecutor));
    }, (exit4) => {
      if (subexecutor.activeChildExecutors.some((subexecutor2) => subexecutor2 !== void 0)) {
        let drain4 = new DrainChildExecutors(subexecutor.upstreamExecutor, subexecutor.lastDone, [void 0, ...subexecutor.activeChildExecutors], subexecutor.upstreamExecutor.getDone(), subexecutor.combineChildResults, subexecutor.combineWithChildResult, subexecutor.onPull);
        if (this._closeLastSubstream !== void 0) {
          let closeLastSubstream2 = this._closeLastSubstream;
          return this._closeLastSubstream = void 0, pipe(this._executeCloseLastSubstream(closeLastSubstream2), map16(() => this.replaceSubexecutor(drain4)));
        }
        this.replaceSubexecutor(drain4);
        return;
      }
      let closeLastSubstream = this._closeLastSubstream, state = this.finishSubexecutorWithCloseEffect(pipe(exit4, map12((a) => subexecutor.combineWithChildResult(subexecutor.lastDone, a))), () => closeLastSubstream, (exit5) => subexecutor.upstreamExecutor.close(exit5));
      return state === void 0 ? void 0 : (
        // NOTE: assuming finalizers cannot fail
        effectOrUndefinedIgnored(state)
      );
    });
  }
  drainChildExecutors(subexecutor) {
    if (subexecutor.activeChildExecutors.length === 0) {
      let lastClose = this._closeLastSubstream;
      return lastClose !== void 0 && this.addFinalizer(() => succeed7(lastClose)), this.finishSubexecutorWithCloseEffect(subexecutor.upstreamDone, () => lastClose, (exit4) => subexecutor.upstreamExecutor.close(exit4));
    }
    let activeChild = subexecutor.activeChildExecutors[0], rest = subexecutor.activeChildExecutors.slice(1);
    if (activeChild === void 0) {
      let [emitSeparator, remainingExecutors] = this.applyUpstreamPullStrategy(!0, rest, subexecutor.onPull(NoUpstream(rest.reduce((n, curr) => curr !== void 0 ? n + 1 : n, 0))));
      return this.replaceSubexecutor(new DrainChildExecutors(subexecutor.upstreamExecutor, subexecutor.lastDone, remainingExecutors, subexecutor.upstreamDone, subexecutor.combineChildResults, subexecutor.combineWithChildResult, subexecutor.onPull)), isSome2(emitSeparator) ? (this._emitted = emitSeparator.value, Emit()) : void 0;
    }
    let parentSubexecutor = new DrainChildExecutors(subexecutor.upstreamExecutor, subexecutor.lastDone, rest, subexecutor.upstreamDone, subexecutor.combineChildResults, subexecutor.combineWithChildResult, subexecutor.onPull);
    this.replaceSubexecutor(new PullFromChild(activeChild.childExecutor, parentSubexecutor, activeChild.onEmit));
  }
}, ifNotNull = (effect3) => effect3 !== void 0 ? effect3 : _void, runFinalizers = (finalizers, exit4) => pipe(forEach7(finalizers, (fin) => exit3(fin(exit4))), map16((exits) => pipe(all2(exits), getOrElse(() => void_3))), flatMap9((exit5) => suspend3(() => exit5))), readUpstream = (r, onSuccess, onFailure) => {
  let readStack = [r], read = () => {
    let current = readStack.pop();
    if (current === void 0 || current.upstream === void 0)
      return dieMessage2("Unexpected end of input for channel execution");
    let state = current.upstream.run();
    switch (state._tag) {
      case OP_EMIT2: {
        let emitEffect = current.onEmit(current.upstream.getEmit());
        return readStack.length === 0 ? emitEffect === void 0 ? suspend3(onSuccess) : pipe(emitEffect, matchCauseEffect3({
          onFailure,
          onSuccess
        })) : emitEffect === void 0 ? suspend3(() => read()) : pipe(emitEffect, matchCauseEffect3({
          onFailure,
          onSuccess: () => read()
        }));
      }
      case OP_DONE3: {
        let doneEffect = current.onDone(current.upstream.getDone());
        return readStack.length === 0 ? doneEffect === void 0 ? suspend3(onSuccess) : pipe(doneEffect, matchCauseEffect3({
          onFailure,
          onSuccess
        })) : doneEffect === void 0 ? suspend3(() => read()) : pipe(doneEffect, matchCauseEffect3({
          onFailure,
          onSuccess: () => read()
        }));
      }
      case OP_FROM_EFFECT3:
        return readStack.push(current), pipe(current.onEffect(state.effect), catchAllCause2((cause2) => suspend3(() => {
          let doneEffect = current.onDone(failCause3(cause2));
          return doneEffect === void 0 ? _void : doneEffect;
        })), matchCauseEffect3({
          onFailure,
          onSuccess: () => read()
        }));
      case OP_READ2:
        return readStack.push(current), readStack.push(state), suspend3(() => read());
    }
  };
  return read();
}, runIn = /* @__PURE__ */ dual(2, (self, scope4) => {
  let run7 = (channelDeferred, scopeDeferred, scope5) => acquireUseRelease2(sync4(() => new ChannelExecutor(self, void 0, identity)), (exec) => suspend3(() => runScopedInterpret(exec.run(), exec).pipe(intoDeferred2(channelDeferred), zipRight3(_await3(channelDeferred)), zipLeft2(_await3(scopeDeferred)))), (exec, exit4) => {
    let finalize = exec.close(exit4);
    return finalize === void 0 ? _void : tapErrorCause2(finalize, (cause2) => addFinalizer2(scope5, failCause6(cause2)));
  });
  return uninterruptibleMask3((restore) => all4([fork(scope4, sequential3), make37(), make37()]).pipe(flatMap9(([child, channelDeferred, scopeDeferred]) => restore(run7(channelDeferred, scopeDeferred, child)).pipe(forkIn2(scope4), flatMap9((fiber) => scope4.addFinalizer((exit4) => {
    let interruptors3 = isFailure(exit4) ? interruptors2(exit4.cause) : void 0;
    return isDone5(channelDeferred).pipe(flatMap9((isDone6) => isDone6 ? succeed6(scopeDeferred, void 0).pipe(zipRight3(_await2(fiber)), zipRight3(inheritAll2(fiber))) : succeed6(scopeDeferred, void 0).pipe(zipRight3(interruptors3 && size3(interruptors3) > 0 ? interruptAs(fiber, combineAll2(interruptors3)) : interrupt5(fiber)), zipRight3(inheritAll2(fiber)))));
  }).pipe(zipRight3(restore(_await3(channelDeferred)))))))));
}), runScopedInterpret = (channelState, exec) => {
  let op = channelState;
  switch (op._tag) {
    case OP_FROM_EFFECT3:
      return pipe(op.effect, flatMap9(() => runScopedInterpret(exec.run(), exec)));
    case OP_EMIT2:
      return runScopedInterpret(exec.run(), exec);
    case OP_DONE3:
      return suspend3(() => exec.getDone());
    case OP_READ2:
      return readUpstream(op, () => runScopedInterpret(exec.run(), exec), failCause6);
  }
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/channelMergeDecision.js
var OP_DONE4 = "Done", OP_AWAIT = "Await";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/mergeDecision.js
var MergeDecisionSymbolKey = "effect/ChannelMergeDecision", MergeDecisionTypeId = /* @__PURE__ */ Symbol.for(MergeDecisionSymbolKey), proto10 = {
  [MergeDecisionTypeId]: {
    _R: (_) => _,
    _E0: (_) => _,
    _Z0: (_) => _,
    _E: (_) => _,
    _Z: (_) => _
  }
};
var Await = (f) => {
  let op = Object.create(proto10);
  return op._tag = OP_AWAIT, op.f = f, op;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/channelMergeState.js
var OP_BOTH_RUNNING = "BothRunning", OP_LEFT_DONE = "LeftDone", OP_RIGHT_DONE = "RightDone";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/mergeState.js
var MergeStateSymbolKey = "effect/ChannelMergeState", MergeStateTypeId = /* @__PURE__ */ Symbol.for(MergeStateSymbolKey), proto11 = {
  [MergeStateTypeId]: MergeStateTypeId
}, BothRunning = (left3, right3) => {
  let op = Object.create(proto11);
  return op._tag = OP_BOTH_RUNNING, op.left = left3, op.right = right3, op;
}, LeftDone = (f) => {
  let op = Object.create(proto11);
  return op._tag = OP_LEFT_DONE, op.f = f, op;
}, RightDone = (f) => {
  let op = Object.create(proto11);
  return op._tag = OP_RIGHT_DONE, op.f = f, op;
};

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/opCodes/channelMergeStrategy.js
var OP_BACK_PRESSURE = "BackPressure", OP_BUFFER_SLIDING = "BufferSliding";

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/mergeStrategy.js
var MergeStrategySymbolKey = "effect/ChannelMergeStrategy", MergeStrategyTypeId = /* @__PURE__ */ Symbol.for(MergeStrategySymbolKey), proto12 = {
  [MergeStrategyTypeId]: MergeStrategyTypeId
}, BackPressure = (_) => {
  let op = Object.create(proto12);
  return op._tag = OP_BACK_PRESSURE, op;
}, BufferSliding = (_) => {
  let op = Object.create(proto12);
  return op._tag = OP_BUFFER_SLIDING, op;
};
var match13 = /* @__PURE__ */ dual(2, (self, {
  onBackPressure,
  onBufferSliding
}) => {
  switch (self._tag) {
    case OP_BACK_PRESSURE:
      return onBackPressure();
    case OP_BUFFER_SLIDING:
      return onBufferSliding();
  }
});

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel/singleProducerAsyncInput.js
var OP_STATE_EMPTY = "Empty", OP_STATE_EMIT = "Emit", OP_STATE_ERROR = "Error", OP_STATE_DONE2 = "Done", stateEmpty = (notifyProducer) => ({
  _tag: OP_STATE_EMPTY,
  notifyProducer
}), stateEmit = (notifyConsumers) => ({
  _tag: OP_STATE_EMIT,
  notifyConsumers
}), stateError = (cause2) => ({
  _tag: OP_STATE_ERROR,
  cause: cause2
}), stateDone = (done7) => ({
  _tag: OP_STATE_DONE2,
  done: done7
}), SingleProducerAsyncInputImpl = class {
  ref;
  constructor(ref) {
    this.ref = ref;
  }
  awaitRead() {
    return flatten5(modify4(this.ref, (state) => state._tag === OP_STATE_EMPTY ? [_await3(state.notifyProducer), state] : [_void, state]));
  }
  get close() {
    return fiberIdWith2((fiberId2) => this.error(interrupt4(fiberId2)));
  }
  done(value2) {
    return flatten5(modify4(this.ref, (state) => {
      switch (state._tag) {
        case OP_STATE_EMPTY:
          return [_await3(state.notifyProducer), state];
        case OP_STATE_EMIT:
          return [forEach7(state.notifyConsumers, (deferred) => succeed6(deferred, left2(value2)), {
            discard: !0
          }), stateDone(value2)];
        case OP_STATE_ERROR:
          return [interrupt6, state];
        case OP_STATE_DONE2:
          return [interrupt6, state];
      }
    }));
  }
  emit(element) {
    return flatMap9(make37(), (deferred) => flatten5(modify4(this.ref, (state) => {
      switch (state._tag) {
        case OP_STATE_EMPTY:
          return [_await3(state.notifyProducer), state];
        case OP_STATE_EMIT: {
          let notifyConsumer = state.notifyConsumers[0], notifyConsumers = state.notifyConsumers.slice(1);
          if (notifyConsumer !== void 0)
            return [succeed6(notifyConsumer, right2(element)), notifyConsumers.length === 0 ? stateEmpty(deferred) : stateEmit(notifyConsumers)];
          throw new Error("Bug: Channel.SingleProducerAsyncInput.emit - Queue was empty! please report an issue at https://github.com/Effect-TS/effect/issues");
        }
        case OP_STATE_ERROR:
          return [interrupt6, state];
        case OP_STATE_DONE2:
          return [interrupt6, state];
      }
    })));
  }
  error(cause2) {
    return flatten5(modify4(this.ref, (state) => {
      switch (state._tag) {
        case OP_STATE_EMPTY:
          return [_await3(state.notifyProducer), state];
        case OP_STATE_EMIT:
          return [forEach7(state.notifyConsumers, (deferred) => failCause5(deferred, cause2), {
            discard: !0
          }), stateError(cause2)];
        case OP_STATE_ERROR:
          return [interrupt6, state];
        case OP_STATE_DONE2:
          return [interrupt6, state];
      }
    }));
  }
  get take() {
    return this.takeWith((cause2) => failCause3(map13(cause2, left2)), (elem) => succeed3(elem), (done7) => fail3(right2(done7)));
  }
  takeWith(onError4, onElement, onDone2) {
    return flatMap9(make37(), (deferred) => flatten5(modify4(this.ref, (state) => {
      switch (state._tag) {
        case OP_STATE_EMPTY:
          return [zipRight3(succeed6(state.notifyProducer, void 0), matchCause3(_await3(deferred), {
            onFailure: onError4,
            onSuccess: match({
              onLeft: onDone2,
              onRight: onElement
            })
          })), stateEmit([deferred])];
        case OP_STATE_EMIT:
          return [matchCause3(_await3(deferred), {
            onFailure: onError4,
            onSuccess: match({
              onLeft: onDone2,
              onRight: onElement
            })
          }), stateEmit([...state.notifyConsumers, deferred])];
        case OP_STATE_ERROR:
          return [succeed7(onError4(state.cause)), state];
        case OP_STATE_DONE2:
          return [succeed7(onDone2(state.done)), state];
      }
    })));
  }
}, make41 = () => pipe(make37(), flatMap9((deferred) => make24(stateEmpty(deferred))), map16((ref) => new SingleProducerAsyncInputImpl(ref)));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/channel.js
var as5 = /* @__PURE__ */ dual(2, (self, value2) => map20(self, () => value2));
var concatMap = /* @__PURE__ */ dual(2, (self, f) => concatMapWith(self, f, () => {
}, () => {
}));
var drain = (self) => {
  let drainer = readWithCause({
    onInput: () => drainer,
    onFailure: failCause8,
    onDone: succeed11
  });
  return pipeTo(self, drainer);
};
var ensuring3 = /* @__PURE__ */ dual(2, (self, finalizer2) => ensuringWith(self, () => finalizer2));
var flatten8 = (self) => flatMap12(self, identity);
var fromInput = (input2) => unwrap2(input2.takeWith(failCause8, (elem) => flatMap12(write(elem), () => fromInput(input2)), succeed11));
var map20 = /* @__PURE__ */ dual(2, (self, f) => flatMap12(self, (a) => sync7(() => f(a))));
var mapOut = /* @__PURE__ */ dual(2, (self, f) => {
  let reader = readWith({
    onInput: (outElem) => flatMap12(write(f(outElem)), () => reader),
    onFailure: fail10,
    onDone: succeedNow
  });
  return pipeTo(self, reader);
});
var mergeAll5 = (options) => (channels) => mergeAllWith(options)(channels, constVoid);
var mergeAllWith = ({
  bufferSize = 16,
  concurrency,
  mergeStrategy = BackPressure()
}) => (channels, f) => unwrapScopedWith((scope4) => gen2(function* () {
  let concurrencyN = concurrency === "unbounded" ? Number.MAX_SAFE_INTEGER : concurrency, input2 = yield* make41(), queueReader = fromInput(input2), queue = yield* bounded3(bufferSize);
  yield* addFinalizer2(scope4, shutdown2(queue));
  let cancelers = yield* unbounded3();
  yield* addFinalizer2(scope4, shutdown2(cancelers));
  let lastDone = yield* make24(none2()), errorSignal = yield* make37(), withPermits = (yield* makeSemaphore2(concurrencyN)).withPermits, pull = yield* toPullIn(pipeTo(queueReader, channels), scope4);
  function evaluatePull(pull2) {
    return pull2.pipe(flatMap9(match({
      onLeft: (done7) => succeed7(some2(done7)),
      onRight: (outElem) => as4(offer3(queue, succeed7(right2(outElem))), none2())
    })), repeat({
      until: (_) => isSome2(_)
    }), flatMap9((outDone) => update3(lastDone, match2({
      onNone: () => some2(outDone.value),
      onSome: (lastDone2) => some2(f(lastDone2, outDone.value))
    }))), catchAllCause2((cause2) => isInterrupted2(cause2) ? failCause6(cause2) : offer3(queue, failCause6(cause2)).pipe(zipRight3(succeed6(errorSignal, void 0)), asVoid2)));
  }
  yield* pull.pipe(matchCauseEffect3({
    onFailure: (cause2) => offer3(queue, failCause6(cause2)).pipe(zipRight3(succeed7(!1))),
    onSuccess: match({
      onLeft: (outDone) => raceWith2(interruptible4(_await3(errorSignal)), interruptible4(withPermits(concurrencyN)(_void)), {
        onSelfDone: (_, permitAcquisition) => as4(interrupt5(permitAcquisition), !1),
        onOtherDone: (_, failureAwait) => zipRight3(interrupt5(failureAwait), get10(lastDone).pipe(flatMap9(match2({
          onNone: () => offer3(queue, succeed7(left2(outDone))),
          onSome: (lastDone2) => offer3(queue, succeed7(left2(f(lastDone2, outDone))))
        })), as4(!1)))
      }),
      onRight: (channel) => match13(mergeStrategy, {
        onBackPressure: () => gen2(function* () {
          let latch = yield* make37(), raceEffects = scopedWith2((scope5) => toPullIn(pipeTo(queueReader, channel), scope5).pipe(flatMap9((pull2) => race2(exit3(evaluatePull(pull2)), exit3(interruptible4(_await3(errorSignal))))), flatMap9(identity)));
          return yield* succeed6(latch, void 0).pipe(zipRight3(raceEffects), withPermits(1), forkIn2(scope4)), yield* _await3(latch), !(yield* isDone5(errorSignal));
        }),
        onBufferSliding: () => gen2(function* () {
          let canceler = yield* make37(), latch = yield* make37(), size13 = yield* size11(cancelers);
          yield* take2(cancelers).pipe(flatMap9((canceler2) => succeed6(canceler2, void 0)), when2(() => size13 >= concurrencyN)), yield* offer3(cancelers, canceler);
          let raceEffects = scopedWith2((scope5) => toPullIn(pipeTo(queueReader, channel), scope5).pipe(flatMap9((pull2) => exit3(evaluatePull(pull2)).pipe(race2(exit3(interruptible4(_await3(errorSignal)))), race2(exit3(interruptible4(_await3(canceler)))))), flatMap9(identity)));
          return yield* succeed6(latch, void 0).pipe(zipRight3(raceEffects), withPermits(1), forkIn2(scope4)), yield* _await3(latch), !(yield* isDone5(errorSignal));
        })
      })
    })
  }), repeat({
    while: (_) => _
  }), forkIn2(scope4));
  let consumer = pipe(take2(queue), flatten5, matchCause3({
    onFailure: failCause8,
    onSuccess: match({
      onLeft: succeedNow,
      onRight: (outElem) => flatMap12(write(outElem), () => consumer)
    })
  }), unwrap2);
  return embedInput(consumer, input2);
})), mergeMap = /* @__PURE__ */ dual(3, (self, f, options) => mergeAll5(options)(mapOut(self, f)));
var mergeWith2 = /* @__PURE__ */ dual(2, (self, options) => {
  function merge8(scope4) {
    return gen2(function* () {
      let input2 = yield* make41(), queueReader = fromInput(input2), pullL = yield* toPullIn(pipeTo(queueReader, self), scope4), pullR = yield* toPullIn(pipeTo(queueReader, options.other), scope4);
      function handleSide(exit4, fiber, pull) {
        return (done7, both2, single) => {
          function onDecision2(decision) {
            let op = decision;
            return op._tag === OP_DONE4 ? succeed7(fromEffect4(zipRight3(interrupt5(fiber), op.effect))) : map16(_await2(fiber), match9({
              onFailure: (cause2) => fromEffect4(op.f(failCause3(cause2))),
              onSuccess: match({
                onLeft: (done8) => fromEffect4(op.f(succeed3(done8))),
                onRight: (elem) => zipRight4(write(elem), go2(single(op.f)))
              })
            }));
          }
          return match9(exit4, {
            onFailure: (cause2) => onDecision2(done7(failCause3(cause2))),
            onSuccess: match({
              onLeft: (z) => onDecision2(done7(succeed3(z))),
              onRight: (elem) => succeed7(flatMap12(write(elem), () => flatMap12(fromEffect4(forkIn2(interruptible4(pull), scope4)), (leftFiber) => go2(both2(leftFiber, fiber)))))
            })
          });
        };
      }
      function go2(state) {
        switch (state._tag) {
          case OP_BOTH_RUNNING: {
            let leftJoin = interruptible4(join3(state.left)), rightJoin = interruptible4(join3(state.right));
            return unwrap2(raceWith2(leftJoin, rightJoin, {
              onSelfDone: (leftExit, rf) => zipRight3(interrupt5(rf), handleSide(leftExit, state.right, pullL)(options.onSelfDone, BothRunning, (f) => LeftDone(f))),
              onOtherDone: (rightExit, lf) => zipRight3(interrupt5(lf), handleSide(rightExit, state.left, pullR)(options.onOtherDone, (left3, right3) => BothRunning(right3, left3), (f) => RightDone(f)))
            }));
          }
          case OP_LEFT_DONE:
            return unwrap2(map16(exit3(pullR), match9({
              onFailure: (cause2) => fromEffect4(state.f(failCause3(cause2))),
              onSuccess: match({
                onLeft: (done7) => fromEffect4(state.f(succeed3(done7))),
                onRight: (elem) => flatMap12(write(elem), () => go2(LeftDone(state.f)))
              })
            })));
          case OP_RIGHT_DONE:
            return unwrap2(map16(exit3(pullL), match9({
              onFailure: (cause2) => fromEffect4(state.f(failCause3(cause2))),
              onSuccess: match({
                onLeft: (done7) => fromEffect4(state.f(succeed3(done7))),
                onRight: (elem) => flatMap12(write(elem), () => go2(RightDone(state.f)))
              })
            })));
        }
      }
      return fromEffect4(withFiberRuntime2((parent) => {
        let inherit = withFiberRuntime2((state) => (state.transferChildren(parent.scope()), _void)), leftFiber = interruptible4(pullL).pipe(ensuring2(inherit), forkIn2(scope4)), rightFiber = interruptible4(pullR).pipe(ensuring2(inherit), forkIn2(scope4));
        return zipWith3(leftFiber, rightFiber, (left3, right3) => BothRunning(left3, right3));
      })).pipe(flatMap12(go2), embedInput(input2));
    });
  }
  return unwrapScopedWith(merge8);
});
var pipeToOrFail = /* @__PURE__ */ dual(2, (self, that) => suspend7(() => {
  let channelException, reader = readWith({
    onInput: (outElem) => flatMap12(write(outElem), () => reader),
    onFailure: (outErr) => (channelException = ChannelException(outErr), failCause8(die4(channelException))),
    onDone: succeedNow
  }), writer = readWithCause({
    onInput: (outElem) => pipe(write(outElem), flatMap12(() => writer)),
    onFailure: (cause2) => isDieType2(cause2) && isChannelException(cause2.defect) && equals(cause2.defect, channelException) ? fail10(cause2.defect.error) : failCause8(cause2),
    onDone: succeedNow
  });
  return pipeTo(pipeTo(pipeTo(self, reader), that), writer);
}));
var run = (self) => scopedWith2((scope4) => runIn(self, scope4));
var runDrain = (self) => run(drain(self));
var scoped2 = (effect3) => unwrap2(uninterruptibleMask3((restore) => map16(make35(), (scope4) => acquireReleaseOut(tapErrorCause2(restore(extend2(effect3, scope4)), (cause2) => close(scope4, failCause3(cause2))), (_, exit4) => close(scope4, exit4))))), scopedWith3 = (f) => unwrapScoped2(map16(scope2, (scope4) => flatMap12(fromEffect4(f(scope4)), write)));
var toPullIn = /* @__PURE__ */ dual(2, (self, scope4) => zip5(sync4(() => new ChannelExecutor(self, void 0, identity)), runtime3()).pipe(tap2(([executor, runtime4]) => addFinalizerExit(scope4, (exit4) => {
  let finalizer2 = executor.close(exit4);
  return finalizer2 !== void 0 ? provide2(finalizer2, runtime4) : _void;
})), uninterruptible2, map16(([executor]) => suspend3(() => interpretToPull(executor.run(), executor))))), interpretToPull = (channelState, exec) => {
  let state = channelState;
  switch (state._tag) {
    case OP_DONE3:
      return match9(exec.getDone(), {
        onFailure: failCause6,
        onSuccess: (done7) => succeed7(left2(done7))
      });
    case OP_EMIT2:
      return succeed7(right2(exec.getEmit()));
    case OP_FROM_EFFECT3:
      return pipe(state.effect, flatMap9(() => interpretToPull(exec.run(), exec)));
    case OP_READ2:
      return readUpstream(state, () => interpretToPull(exec.run(), exec), (cause2) => failCause6(cause2));
  }
};
var unwrap2 = (channel) => flatten8(fromEffect4(channel)), unwrapScoped2 = (self) => concatAllWith(scoped2(self), (d, _) => d, (d, _) => d), unwrapScopedWith = (f) => concatAllWith(scopedWith3(f), (d, _) => d, (d, _) => d);
var writeChunk = (outs) => writeChunkWriter(0, outs.length, outs), writeChunkWriter = (idx, len, chunk3) => idx === len ? void_5 : pipe(write(pipe(chunk3, unsafeGet2(idx))), flatMap12(() => writeChunkWriter(idx + 1, len, chunk3))), zip7 = /* @__PURE__ */ dual((args2) => isChannel(args2[1]), (self, that, options) => options?.concurrent ? mergeWith2(self, {
  other: that,
  onSelfDone: (exit1) => Await((exit22) => suspend3(() => zip3(exit1, exit22))),
  onOtherDone: (exit22) => Await((exit1) => suspend3(() => zip3(exit1, exit22)))
}) : flatMap12(self, (a) => map20(that, (b) => [a, b])));
var zipRight4 = /* @__PURE__ */ dual((args2) => isChannel(args2[1]), (self, that, options) => options?.concurrent ? map20(zip7(self, that, {
  concurrent: !0
}), (tuple2) => tuple2[1]) : flatMap12(self, () => that)), ChannelExceptionTypeId = /* @__PURE__ */ Symbol.for("effect/Channel/ChannelException"), ChannelException = (error) => ({
  _tag: "ChannelException",
  [ChannelExceptionTypeId]: ChannelExceptionTypeId,
  error
}), isChannelException = (u) => hasProperty(u, ChannelExceptionTypeId);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Runtime.js
var runFork3 = unsafeFork3;
var make42 = make36;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Schedule.js
var exponential3 = exponential2;
var identity3 = identity2;
var intersect6 = intersect5;
var jittered2 = jittered, jitteredWith2 = jitteredWith;
var map21 = map15;
var modifyDelay2 = modifyDelay;
var recurs2 = recurs;
var whileInput2 = whileInput;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/sink.js
var SinkTypeId2 = /* @__PURE__ */ Symbol.for("effect/Sink"), sinkVariance2 = {
  /* c8 ignore next */
  _A: (_) => _,
  /* c8 ignore next */
  _In: (_) => _,
  /* c8 ignore next */
  _L: (_) => _,
  /* c8 ignore next */
  _E: (_) => _,
  /* c8 ignore next */
  _R: (_) => _
}, SinkImpl = class {
  channel;
  [SinkTypeId2] = sinkVariance2;
  constructor(channel) {
    this.channel = channel;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
};
var suspend8 = (evaluate2) => new SinkImpl(suspend7(() => toChannel(evaluate2())));
var fold = (s, contFn, f) => suspend8(() => new SinkImpl(foldReader(s, contFn, f))), foldReader = (s, contFn, f) => contFn(s) ? readWith({
  onInput: (input2) => {
    let [nextS, leftovers] = foldChunkSplit(s, input2, contFn, f, 0, input2.length);
    return isNonEmpty(leftovers) ? pipe(write(leftovers), as5(nextS)) : foldReader(nextS, contFn, f);
  },
  onFailure: fail10,
  onDone: () => succeedNow(s)
}) : succeedNow(s), foldChunkSplit = (s, chunk3, contFn, f, index, length3) => {
  if (index === length3)
    return [s, empty3()];
  let s1 = f(s, pipe(chunk3, unsafeGet2(index)));
  return contFn(s1) ? foldChunkSplit(s1, chunk3, contFn, f, index + 1, length3) : [s1, pipe(chunk3, drop2(index + 1))];
};
var foldEffect = (s, contFn, f) => suspend8(() => new SinkImpl(foldEffectReader(s, contFn, f))), foldEffectReader = (s, contFn, f) => contFn(s) ? readWith({
  onInput: (input2) => pipe(fromEffect4(foldChunkSplitEffect(s, input2, contFn, f)), flatMap12(([nextS, leftovers]) => pipe(leftovers, match2({
    onNone: () => foldEffectReader(nextS, contFn, f),
    onSome: (leftover) => pipe(write(leftover), as5(nextS))
  })))),
  onFailure: fail10,
  onDone: () => succeedNow(s)
}) : succeedNow(s), foldChunkSplitEffect = (s, chunk3, contFn, f) => foldChunkSplitEffectInternal(s, chunk3, 0, chunk3.length, contFn, f), foldChunkSplitEffectInternal = (s, chunk3, index, length3, contFn, f) => index === length3 ? succeed7([s, none2()]) : pipe(f(s, pipe(chunk3, unsafeGet2(index))), flatMap9((s1) => contFn(s1) ? foldChunkSplitEffectInternal(s1, chunk3, index + 1, length3, contFn, f) : succeed7([s1, some2(pipe(chunk3, drop2(index + 1)))])));
var fromEffect6 = (effect3) => new SinkImpl(fromEffect4(effect3));
var toChannel = (self) => isEffect2(self) ? toChannel(fromEffect6(self)) : self.channel;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/stream/pull.js
var end3 = () => fail6(none2());
var failCause9 = (cause2) => mapError2(failCause6(cause2), some2);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/internal/stream.js
var StreamSymbolKey = "effect/Stream", StreamTypeId2 = /* @__PURE__ */ Symbol.for(StreamSymbolKey), streamVariance = {
  _R: (_) => _,
  _E: (_) => _,
  _A: (_) => _
}, StreamImpl = class {
  channel;
  [StreamTypeId2] = streamVariance;
  constructor(channel) {
    this.channel = channel;
  }
  pipe() {
    return pipeArguments(this, arguments);
  }
}, isStream = (u) => hasProperty(u, StreamTypeId2) || isEffect2(u), DefaultChunkSize = 4096;
var ensuring5 = /* @__PURE__ */ dual(2, (self, finalizer2) => new StreamImpl(pipe(toChannel2(self), ensuring3(finalizer2))));
var flatMap14 = /* @__PURE__ */ dual((args2) => isStream(args2[0]), (self, f, options) => {
  let bufferSize = options?.bufferSize ?? 16;
  return options?.switch ? matchConcurrency(options?.concurrency, () => flatMapParSwitchBuffer(self, 1, bufferSize, f), (n) => flatMapParSwitchBuffer(self, n, bufferSize, f)) : matchConcurrency(options?.concurrency, () => new StreamImpl(concatMap(toChannel2(self), (as8) => pipe(as8, map4((a) => toChannel2(f(a))), reduce2(void_5, (left3, right3) => pipe(left3, zipRight4(right3)))))), (_) => new StreamImpl(pipe(toChannel2(self), concatMap(writeChunk), mergeMap((out) => toChannel2(f(out)), options))));
}), matchConcurrency = (concurrency, sequential5, bounded6) => {
  switch (concurrency) {
    case void 0:
      return sequential5();
    case "unbounded":
      return bounded6(Number.MAX_SAFE_INTEGER);
    default:
      return concurrency > 1 ? bounded6(concurrency) : sequential5();
  }
}, flatMapParSwitchBuffer = /* @__PURE__ */ dual(4, (self, n, bufferSize, f) => new StreamImpl(pipe(toChannel2(self), concatMap(writeChunk), mergeMap((out) => toChannel2(f(out)), {
  concurrency: n,
  mergeStrategy: BufferSliding(),
  bufferSize
})))), flatten10 = /* @__PURE__ */ dual((args2) => isStream(args2[0]), (self, options) => flatMap14(self, identity, options));
var toChannel2 = (stream) => {
  if ("channel" in stream)
    return stream.channel;
  if (isEffect2(stream))
    return toChannel2(fromEffect7(stream));
  throw new TypeError("Expected a Stream.");
};
var fromChunk = (chunk3) => new StreamImpl(isEmpty(chunk3) ? void_5 : write(chunk3));
var fromEffect7 = (effect3) => pipe(effect3, mapError2(some2), fromEffectOption), fromEffectOption = (effect3) => new StreamImpl(unwrap2(match11(effect3, {
  onFailure: match2({
    onNone: () => void_5,
    onSome: fail10
  }),
  onSuccess: (a) => write(of2(a))
}))), fromPubSub = (pubsub, options) => {
  let maxChunkSize = options?.maxChunkSize ?? DefaultChunkSize;
  if (options?.scoped) {
    let effect3 = map16(subscribe2(pubsub), (queue) => fromQueue2(queue, {
      maxChunkSize,
      shutdown: !0
    }));
    return options.shutdown ? map16(effect3, ensuring5(shutdown4(pubsub))) : effect3;
  }
  let stream = flatMap14(scoped4(subscribe2(pubsub)), (queue) => fromQueue2(queue, {
    maxChunkSize
  }));
  return options?.shutdown ? ensuring5(stream, shutdown4(pubsub)) : stream;
};
var fromIterable11 = (iterable) => suspend9(() => isChunk(iterable) ? fromChunk(iterable) : fromIteratorSucceed(iterable[Symbol.iterator]()));
var fromIteratorSucceed = (iterator, maxChunkSize = DefaultChunkSize) => pipe(sync4(() => {
  let builder = [], loop2 = (iterator2) => pipe(sync4(() => {
    let next3 = iterator2.next();
    if (maxChunkSize === 1)
      return next3.done ? void_5 : pipe(write(of2(next3.value)), flatMap12(() => loop2(iterator2)));
    builder = [];
    let count3 = 0;
    for (; next3.done === !1 && (builder.push(next3.value), count3 = count3 + 1, !(count3 >= maxChunkSize)); )
      next3 = iterator2.next();
    return count3 > 0 ? pipe(write(unsafeFromArray(builder)), flatMap12(() => loop2(iterator2))) : void_5;
  }), unwrap2);
  return new StreamImpl(loop2(iterator));
}), unwrap3);
var fromQueue2 = (queue, options) => pipe(takeBetween2(queue, 1, options?.maxChunkSize ?? DefaultChunkSize), catchAllCause2((cause2) => pipe(isShutdown2(queue), flatMap9((isShutdown4) => isShutdown4 && isInterrupted2(cause2) ? end3() : failCause9(cause2)))), repeatEffectChunkOption, options?.shutdown ? ensuring5(shutdown2(queue)) : identity);
var repeatEffectChunkOption = (effect3) => unfoldChunkEffect(effect3, (effect4) => pipe(map16(effect4, (chunk3) => some2([chunk3, effect4])), catchAll2(match2({
  onNone: () => succeed7(none2()),
  onSome: fail6
}))));
var run3 = /* @__PURE__ */ dual(2, (self, sink) => toChannel2(self).pipe(pipeToOrFail(toChannel(sink)), runDrain));
var runFold = /* @__PURE__ */ dual(3, (self, s, f) => runFoldWhile(self, s, constTrue, f)), runFoldEffect = /* @__PURE__ */ dual(3, (self, s, f) => runFoldWhileEffect(self, s, constTrue, f));
var runFoldWhile = /* @__PURE__ */ dual(4, (self, s, cont, f) => run3(self, fold(s, cont, f))), runFoldWhileEffect = /* @__PURE__ */ dual(4, (self, s, cont, f) => run3(self, foldEffect(s, cont, f)));
var scoped4 = (effect3) => new StreamImpl(ensuring3(scoped2(pipe(effect3, map16(of2))), _void));
var suspend9 = (stream) => new StreamImpl(suspend7(() => toChannel2(stream())));
var unfoldChunkEffect = (s, f) => suspend9(() => {
  let loop2 = (s2) => unwrap2(map16(f(s2), match2({
    onNone: () => void_5,
    onSome: ([chunk3, s3]) => flatMap12(write(chunk3), () => loop2(s3))
  })));
  return new StreamImpl(loop2(s));
});
var unwrap3 = (effect3) => flatten10(fromEffect7(effect3)), unwrapScoped3 = (effect3) => flatten10(scoped4(effect3));

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Stream.js
var flatMap15 = flatMap14;
var fromEffect8 = fromEffect7;
var fromPubSub2 = fromPubSub;
var fromIterable12 = fromIterable11;
var runFold2 = runFold, runFoldEffect2 = runFoldEffect;
var suspend10 = suspend9;
var unwrapScoped4 = unwrapScoped3;

// packages/kernel/src/Content.ts
var Content_exports = {};
__export(Content_exports, {
  CacheControl: () => CacheControl,
  ContentBlock: () => ContentBlock,
  DocumentBlock: () => DocumentBlock,
  History: () => History,
  ImageBlock: () => ImageBlock,
  MediaSource: () => MediaSource,
  Message: () => Message,
  RedactedThinkingBlock: () => RedactedThinkingBlock,
  System: () => System,
  TextBlock: () => TextBlock,
  ThinkingBlock: () => ThinkingBlock,
  ToolResultBlock: () => ToolResultBlock,
  ToolUseBlock: () => ToolUseBlock,
  systemText: () => systemText,
  text: () => text,
  textOf: () => textOf,
  toolResult: () => toolResult,
  toolUse: () => toolUse,
  toolUses: () => toolUses,
  unansweredToolUses: () => unansweredToolUses,
  userText: () => userText
});
var CacheControl = Struct({
  type: Literal2("ephemeral"),
  ttl: optional(Literal2("5m", "1h"))
}), TextBlock = Struct({
  type: Literal2("text"),
  text: String$,
  cache_control: optional(CacheControl)
}), ToolUseBlock = Struct({
  type: Literal2("tool_use"),
  id: String$,
  name: String$,
  input: Unknown,
  invalid_input: optional(String$),
  cache_control: optional(CacheControl)
}), ToolResultBlock = Struct({
  type: Literal2("tool_result"),
  tool_use_id: String$,
  content: String$,
  is_error: Boolean$,
  cache_control: optional(CacheControl)
}), ThinkingBlock = Struct({
  type: Literal2("thinking"),
  thinking: String$,
  signature: optional(String$)
}), RedactedThinkingBlock = Struct({
  type: Literal2("redacted_thinking"),
  data: String$
}), MediaSource = Union2(
  Struct({ type: Literal2("base64"), media_type: String$, data: String$ }),
  Struct({ type: Literal2("url"), url: String$ })
), ImageBlock = Struct({
  type: Literal2("image"),
  source: MediaSource,
  cache_control: optional(CacheControl)
}), DocumentBlock = Struct({
  type: Literal2("document"),
  source: MediaSource,
  cache_control: optional(CacheControl)
}), ContentBlock = Union2(
  TextBlock,
  ToolUseBlock,
  ToolResultBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ImageBlock,
  DocumentBlock
), Message = Struct({
  role: Literal2("user", "assistant"),
  content: Array$(ContentBlock)
}), History = Array$(Message), System = Union2(String$, Array$(TextBlock)), systemText = (system) => typeof system == "string" ? system : system.map((block) => block.text).join(`

`), text = (text3) => ({ type: "text", text: text3 }), toolUse = (id2, name, input2) => ({
  type: "tool_use",
  id: id2,
  name,
  input: input2
}), toolResult = (toolUseId, content, isError = !1) => ({
  type: "tool_result",
  tool_use_id: toolUseId,
  content,
  is_error: isError
}), userText = (input2) => ({ role: "user", content: [text(input2)] }), toolUses = (message2) => {
  let uses;
  for (let block of message2.content)
    block.type === "tool_use" && (uses === void 0 ? uses = [block] : uses.push(block));
  return uses ?? noToolUses;
}, noToolUses = Object.freeze([]), textOf = (message2) => {
  let text3 = "";
  for (let block of message2.content) block.type === "text" && (text3 += block.text);
  return text3;
}, unansweredToolUses = (history) => history.flatMap((message2, i) => {
  let next3 = history[i + 1];
  return toolUses(message2).flatMap(
    (block) => next3?.content.some((b) => b.type === "tool_result" && b.tool_use_id === block.id) === !0 ? [] : [block.id]
  );
});

// packages/kernel/src/internal/responsePart.ts
var empty31 = { blocks: [], usage: void 0, finish: void 0 }, position = (blocks, index) => {
  for (let i = blocks.length - 1; i >= 0; i--) if (blocks[i].index === index) return i;
  return -1;
}, put = (state, index, update5) => {
  let at = position(state.blocks, index);
  if (at === -1) return { ...state, blocks: [...state.blocks, update5(void 0)] };
  let blocks = state.blocks.slice();
  return blocks[at] = update5(blocks[at]), { ...state, blocks };
}, add6 = (state, part) => {
  switch (part.type) {
    case "text_delta":
      return put(
        state,
        part.index,
        (current) => current?.type === "text" ? { ...current, text: current.text + part.text } : { type: "text", index: part.index, text: part.text }
      );
    case "thinking_delta":
      return put(
        state,
        part.index,
        (current) => current?.type === "thinking" ? { ...current, thinking: current.thinking + part.text } : { type: "thinking", index: part.index, thinking: part.text }
      );
    case "thinking_signature":
      return put(
        state,
        part.index,
        (current) => current?.type === "thinking" ? { ...current, signature: (current.signature ?? "") + part.signature } : { type: "thinking", index: part.index, thinking: "", signature: part.signature }
      );
    case "redacted_thinking":
      return put(state, part.index, () => ({ type: "redacted_thinking", index: part.index, data: part.data }));
    case "tool_use_start":
      return put(state, part.index, (current) => ({
        type: "tool_use",
        index: part.index,
        id: part.id,
        name: part.name,
        // Input that arrived before its start (never from a well-behaved provider) is kept, not dropped.
        json: current?.type === "tool_use" ? current.json : ""
      }));
    case "tool_input_delta":
      return put(
        state,
        part.index,
        (current) => current?.type === "tool_use" ? { ...current, json: current.json + part.json } : { type: "tool_use", index: part.index, id: "", name: "", json: part.json }
      );
    case "usage":
      return { ...state, usage: part.usage };
    case "finish":
      return { ...state, finish: { stop_reason: part.stop_reason, model: part.model } };
  }
}, parseInput = (json) => {
  if (json.trim() === "") return { input: {} };
  try {
    let input2 = JSON.parse(json);
    if (typeof input2 == "object" && input2 !== null && !Array.isArray(input2)) return { input: input2 };
  } catch {
  }
  return { input: {}, invalid: json };
}, toBlock = (block) => {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return block.signature === void 0 ? { type: "thinking", thinking: block.thinking } : { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_use": {
      let { input: input2, invalid } = parseInput(block.json);
      return invalid === void 0 ? { type: "tool_use", id: block.id, name: block.name, input: input2 } : { type: "tool_use", id: block.id, name: block.name, input: input2, invalid_input: invalid };
    }
  }
}, byIndex = (blocks) => {
  for (let i = 1; i < blocks.length; i++)
    if (blocks[i - 1].index > blocks[i].index)
      return blocks.slice().sort((a, b) => a.index - b.index);
  return blocks;
}, ordered = (state) => byIndex(state.blocks), isFinished = (state) => state.finish !== void 0, toResponse = (state, model) => {
  let blocks = byIndex(state.blocks).map(toBlock);
  return {
    model: state.finish?.model ?? model,
    content: blocks,
    stop_reason: state.finish?.stop_reason ?? (blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn"),
    usage: state.usage ?? { input_tokens: 0, output_tokens: 0 }
  };
}, text2 = (state) => {
  let out = "";
  for (let block of byIndex(state.blocks)) block.type === "text" && (out += block.text);
  return out;
}, usage = (state) => state.usage;
var fromResponse = (response2) => {
  let parts2 = [];
  return response2.content.forEach((block, index) => {
    switch (block.type) {
      case "text":
        parts2.push({ type: "text_delta", index, text: block.text });
        return;
      case "thinking":
        parts2.push({ type: "thinking_delta", index, text: block.thinking }), block.signature !== void 0 && parts2.push({ type: "thinking_signature", index, signature: block.signature });
        return;
      case "redacted_thinking":
        parts2.push({ type: "redacted_thinking", index, data: block.data });
        return;
      case "tool_use":
        parts2.push({ type: "tool_use_start", index, id: block.id, name: block.name }), parts2.push({ type: "tool_input_delta", index, json: block.invalid_input ?? JSON.stringify(block.input ?? {}) });
        return;
      default:
        return;
    }
  }), parts2.push({ type: "usage", usage: response2.usage }), parts2.push({ type: "finish", stop_reason: response2.stop_reason, model: response2.model }), parts2;
};

// packages/kernel/src/Settings.ts
var Settings_exports = {};
__export(Settings_exports, {
  JitterKind: () => JitterKind,
  ModelPrice: () => ModelPrice,
  Settings: () => Settings,
  SettingsError: () => SettingsError,
  config: () => config2,
  decode: () => decode2,
  decodeEither: () => decodeEither,
  defaults: () => defaults,
  fromFile: () => fromFile,
  fromJson: () => fromJson,
  keys: () => keys6,
  override: () => override,
  parseAssignments: () => parseAssignments,
  readFile: () => readFile
});

// node_modules/.pnpm/@effect+platform@0.97.2_effect@3.22.4/node_modules/@effect/platform/dist/esm/internal/fileSystem.js
var tag = /* @__PURE__ */ GenericTag("@effect/platform/FileSystem");
var bigint1024 = /* @__PURE__ */ BigInt(1024), bigintPiB = bigint1024 * bigint1024 * bigint1024 * bigint1024 * bigint1024;

// node_modules/.pnpm/@effect+platform@0.97.2_effect@3.22.4/node_modules/@effect/platform/dist/esm/FileSystem.js
var FileSystem = tag;

// packages/kernel/src/Settings.ts
var Millis = Number$.pipe(finite(), nonNegative()), PositiveMillis = Number$.pipe(finite(), positive()), Count = Number$.pipe(int(), nonNegative()), PositiveCount = Number$.pipe(int(), positive()), ModelPrice = Struct({
  input_per_mtok: Number$.pipe(nonNegative()),
  output_per_mtok: Number$.pipe(nonNegative()),
  cache_read_per_mtok: optional(Number$.pipe(nonNegative())),
  cache_write_per_mtok: optional(Number$.pipe(nonNegative()))
}), JitterKind = Literal2("proportional", "full", "none"), withDefault2 = (schema, value2) => optionalWith(schema, { default: () => value2, exact: !0 }), Settings = Struct({
  base_delay_ms: withDefault2(Millis, 500),
  backoff_factor: withDefault2(Number$.pipe(finite(), greaterThanOrEqualTo3(1)), 2),
  max_retries: withDefault2(Count, 5),
  max_delay_ms: withDefault2(Millis, 3e4),
  jitter: withDefault2(JitterKind, "proportional"),
  max_retry_wait_ms: withDefault2(Millis, 6e4),
  max_session_retries: withDefault2(Count, 20),
  session_retries_refill: withDefault2(Boolean$, !0),
  max_turns: withDefault2(PositiveCount, 100),
  max_wall_clock_ms: optionalWith(Millis, { exact: !0 }),
  max_cost_usd: optionalWith(Number$.pipe(finite(), nonNegative()), { exact: !0 }),
  prices: withDefault2(Record({ key: String$, value: ModelPrice }), {}),
  max_context_reductions: withDefault2(Count, 3),
  fallback_models: withDefault2(Array$(NonEmptyTrimmedString), []),
  model_connect_timeout_ms: withDefault2(PositiveMillis, 1e4),
  model_first_byte_timeout_ms: withDefault2(PositiveMillis, 6e5),
  model_idle_timeout_ms: withDefault2(PositiveMillis, 6e4),
  model_attempt_timeout_ms: withDefault2(PositiveMillis, 6e5),
  tool_timeout_ms: withDefault2(Millis, 6e4),
  max_tool_result_bytes: withDefault2(PositiveCount, 1e5),
  breaker_consecutive_failures: withDefault2(PositiveCount, 3),
  breaker_total_failures: withDefault2(PositiveCount, 20),
  breaker_cooldown_ms: withDefault2(Millis, 3e4)
}), keys6 = Object.keys(Settings.fields), SettingsError = class extends TaggedError2("@agent-kernel/SettingsError")("SettingsError", {
  source: String$,
  message: String$,
  issues: Array$(String$)
}) {
}, parseOptions = { errors: "all", onExcessProperty: "error" }, fromParseError = (source, error) => {
  let byPath = /* @__PURE__ */ new Map();
  for (let issue of ArrayFormatter.formatErrorSync(error)) {
    let path = issue.path.length > 0 ? issue.path.join(".") : "(root)";
    byPath.set(path, [...byPath.get(path) ?? [], issue]);
  }
  let issues = Array.from(byPath, ([path, found]) => `${path}: ${describeIssues(path, found)}`);
  return new SettingsError({
    source,
    issues,
    message: `invalid settings in ${source}:
${issues.map((line) => `  - ${line}`).join(`
`)}`
  });
}, expected = /^Expected (.*), actual (.*)$/s, describeIssues = (path, issues) => {
  if (issues.some((issue) => issue._tag === "Unexpected")) {
    let suggestion = nearestKey(path);
    return suggestion === void 0 ? "unknown key" : `unknown key (did you mean "${suggestion}"?)`;
  }
  let parts2 = issues.map((issue) => expected.exec(issue.message));
  return parts2.length > 1 && parts2.every((match14) => match14 !== null) ? `Expected ${parts2.map((match14) => match14?.[1]).join(" | ")}, actual ${parts2[0]?.[2]}` : issues.map((issue) => issue.message).join("; ");
}, nearestKey = (key) => {
  let best, bestDistance = 3;
  for (let candidate of Object.keys(Settings.fields)) {
    let distance = editDistance(key, candidate);
    distance < bestDistance && (best = candidate, bestDistance = distance);
  }
  return best;
}, editDistance = (a, b) => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      );
    previous = current;
  }
  return previous[b.length] ?? 0;
}, defaults = decodeUnknownSync(Settings)({}), MAX_DEPTH = 16, depthExceeds = (input2, limit) => {
  let pending2 = [[input2, 0]];
  for (let next3 = pending2.pop(); next3 !== void 0; next3 = pending2.pop()) {
    let [value2, depth] = next3;
    if (!(typeof value2 != "object" || value2 === null)) {
      if (depth >= limit) return !0;
      for (let child of Object.values(value2)) pending2.push([child, depth + 1]);
    }
  }
  return !1;
}, decodeEither = (input2, source = "settings") => depthExceeds(input2, MAX_DEPTH) ? left2(
  new SettingsError({
    source,
    issues: [`(root): nested deeper than ${MAX_DEPTH} levels`],
    message: `invalid settings in ${source}: a value is nested deeper than ${MAX_DEPTH} levels`
  })
) : decodeUnknownEither2(
  Settings,
  parseOptions
)(input2).pipe(mapLeft((error) => fromParseError(source, error))), decode2 = (input2, source = "settings") => suspend3(() => decodeEither(input2, source)), parseJson = (text3, source) => try_2({
  try: () => JSON.parse(text3),
  catch: (cause2) => {
    let reason = cause2 instanceof Error ? cause2.message : String(cause2);
    return new SettingsError({
      source,
      issues: [`not valid JSON: ${reason}`],
      message: `invalid settings in ${source}: not valid JSON (${reason})`
    });
  }
}), fromJson = (text3, source = "settings") => flatMap9(parseJson(text3, source), (json) => decode2(json, source)), readFile = (path) => gen2(function* () {
  let text3 = yield* (yield* FileSystem).readFileString(path).pipe(
    mapError2(
      (error) => new SettingsError({
        source: path,
        issues: [`cannot read: ${error.message}`],
        message: `cannot read settings file ${path}: ${error.message}`
      })
    )
  ), json = yield* parseJson(text3, path);
  return typeof json != "object" || json === null || Array.isArray(json) ? yield* new SettingsError({
    source: path,
    issues: ["(root): expected a JSON object of settings keys"],
    message: `invalid settings in ${path}: expected a JSON object of settings keys`
  }) : { ...json };
}), fromFile = (path) => flatMap9(readFile(path), (json) => decode2(json, path)), override = (base, overrides, source = "overrides") => flatMap9(encode2(base), (encoded) => decode2({ ...encoded, ...overrides }, source)), encode2 = (settings) => orDie2(encode(Settings)(settings)), parseAssignments = (assignments) => {
  let result = {}, problems = [];
  for (let assignment of assignments) {
    let eq = assignment.indexOf("=");
    if (eq <= 0) {
      problems.push(`"${assignment}": expected key=value`);
      continue;
    }
    result[assignment.slice(0, eq).trim()] = parseScalar(assignment.slice(eq + 1));
  }
  return problems.length === 0 ? right2(result) : left2(
    new SettingsError({
      source: "--set",
      issues: problems,
      message: `invalid settings in --set:
${problems.map((line) => `  - ${line}`).join(`
`)}`
    })
  );
}, parseScalar = (raw) => {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}, config2 = all6(
  fromEntries(keys6.map((key) => [key, option3(string3(key))]))
).pipe(
  mapOrFail2((raw) => {
    let input2 = filterMap2(raw, (value2) => map2(value2, parseScalar));
    return decodeEither(input2, "config").pipe(mapLeft((error) => InvalidData2([], error.message)));
  })
);

// packages/kernel/src/ModelProvider.ts
var ToolDefinition = Struct({
  name: String$,
  description: String$,
  input_schema: Record({ key: String$, value: Unknown }),
  cache_control: optional(CacheControl)
}), Usage = Struct({
  input_tokens: Number$,
  output_tokens: Number$,
  cache_read_tokens: optional(Number$),
  cache_write_tokens: optional(Number$)
}), emptyUsage = { input_tokens: 0, output_tokens: 0 }, addUsage = (self, that) => ({
  input_tokens: self.input_tokens + that.input_tokens,
  output_tokens: self.output_tokens + that.output_tokens,
  cache_read_tokens: (self.cache_read_tokens ?? 0) + (that.cache_read_tokens ?? 0),
  cache_write_tokens: (self.cache_write_tokens ?? 0) + (that.cache_write_tokens ?? 0)
}), StopReason = Literal2("end_turn", "tool_use", "max_tokens", "stop_sequence", "content_filtered"), ToolChoice = Union2(
  Struct({ type: Literal2("auto") }),
  Struct({ type: Literal2("any") }),
  Struct({ type: Literal2("none") }),
  Struct({ type: Literal2("tool"), name: String$ })
), ReasoningEffort = Literal2("minimal", "low", "medium", "high"), RequestOptions = Struct({
  temperature: optional(Number$.pipe(between3(0, 2))),
  top_p: optional(Number$.pipe(between3(0, 1))),
  top_k: optional(Int.pipe(positive())),
  stop_sequences: optional(Array$(String$)),
  tool_choice: optional(ToolChoice),
  parallel_tool_calls: optional(Boolean$),
  thinking: optional(Struct({ budget_tokens: Int.pipe(positive()) })),
  reasoning_effort: optional(ReasoningEffort),
  metadata: optional(Struct({ user_id: optional(String$) })),
  extra: optional(Record({ key: String$, value: Unknown }))
}), ModelRequest = Struct({
  model: String$,
  system: optional(System),
  messages: History,
  tools: Array$(ToolDefinition),
  max_output_tokens: optional(Number$),
  ...RequestOptions.fields
}), ModelResponse = Struct({
  model: String$,
  content: Array$(ContentBlock),
  stop_reason: StopReason,
  usage: Usage
}), ModelProvider = class extends Tag2("@agent-kernel/kernel/ModelProvider")() {
}, make46 = (name, stream) => ({ name, stream }), fromGenerate = (name, generate2) => ({
  name,
  generate: generate2,
  stream: (request) => flatMap15(
    fromEffect8(suspend3(() => generate2(request))),
    (response2) => fromIterable12(fromResponse(response2))
  )
}), generate = (provider, request) => provider.generate !== void 0 ? provider.generate(request) : fold2(provider, request), fold2 = (provider, request) => suspend3(() => {
  let reached = empty31;
  return flatMap9(
    runFold2(
      suspend10(() => provider.stream(request)),
      empty31,
      (state, part) => (reached = add6(state, part), reached)
    ).pipe(mapError2((error) => keepPartialText(error, reached))),
    (state) => isFinished(state) ? succeed7(toResponse(state, request.model)) : fail6(unfinished(provider.name, request.model, usage(state)))
  );
}), keepPartialText = (error, reached) => {
  if (error._tag !== "ContentFiltered" || error.partialText !== void 0) return error;
  let text3 = text2(reached);
  return text3.length === 0 ? error : new ContentFiltered({ ...error, message: error.message, partialText: text3 });
}, unfinished = (provider, model, usage4) => make45("server_error", {
  provider,
  model,
  message: "the response stream ended before its finish part",
  midStream: !0,
  usage: usage4
}), layer = (name, stream) => succeed9(ModelProvider, make46(name, stream)), CurrentCallTimeouts = class extends Reference2()(
  "@agent-kernel/kernel/ModelProvider/CurrentCallTimeouts",
  {
    defaultValue: () => callTimeoutsFrom(defaults)
  }
) {
}, callTimeoutsFrom = (settings) => {
  let defaults2 = defaults;
  return settings.model_connect_timeout_ms === defaults2.model_connect_timeout_ms && settings.model_first_byte_timeout_ms === defaults2.model_first_byte_timeout_ms && settings.model_idle_timeout_ms === defaults2.model_idle_timeout_ms && settings.model_attempt_timeout_ms === defaults2.model_attempt_timeout_ms ? defaultCallTimeouts : timeoutsOf(settings);
}, timeoutsOf = (settings) => ({
  connect: millis(settings.model_connect_timeout_ms),
  firstByte: millis(settings.model_first_byte_timeout_ms),
  idle: millis(settings.model_idle_timeout_ms),
  attempt: millis(settings.model_attempt_timeout_ms)
}), defaultCallTimeouts = Object.freeze(timeoutsOf(defaults));

// packages/kernel/src/ModelError.ts
var Category = Literal2(
  "rate_limited",
  "overloaded",
  "server_error",
  "timeout",
  "connection_error",
  "context_length_exceeded",
  "auth_error",
  "invalid_request",
  "quota_exceeded",
  "content_filtered",
  "process_crashed",
  "unknown"
), reactionOf = (category) => {
  switch (category) {
    case "rate_limited":
    case "overloaded":
    case "server_error":
    case "timeout":
    case "connection_error":
      return "retry";
    case "context_length_exceeded":
      return "reduce_context";
    case "auth_error":
    case "invalid_request":
    case "quota_exceeded":
      return "fatal";
    case "content_filtered":
      return "surface";
    case "process_crashed":
    case "unknown":
      return "fail";
  }
}, commonFields = {
  provider: String$,
  model: String$,
  message: String$,
  status: optional(Number$),
  retryAfter: optional(DurationFromMillis),
  retryable: optional(Boolean$),
  midStream: optional(Boolean$),
  details: optional(Record({ key: String$, value: Unknown })),
  // Read lazily: ModelProvider imports this module, so either may load first.
  usage: optional(suspend6(() => Usage))
}, RateLimited = class extends TaggedError2("@agent-kernel/RateLimited")(
  "RateLimited",
  commonFields
) {
  /** @since 0.1.0 */
  get category() {
    return "rate_limited";
  }
}, Overloaded = class extends TaggedError2("@agent-kernel/Overloaded")("Overloaded", commonFields) {
  /** @since 0.1.0 */
  get category() {
    return "overloaded";
  }
}, ServerError = class extends TaggedError2("@agent-kernel/ServerError")(
  "ServerError",
  commonFields
) {
  /** @since 0.1.0 */
  get category() {
    return "server_error";
  }
}, Timeout = class extends TaggedError2("@agent-kernel/Timeout")("Timeout", commonFields) {
  /** @since 0.1.0 */
  get category() {
    return "timeout";
  }
}, ConnectionError = class extends TaggedError2("@agent-kernel/ConnectionError")(
  "ConnectionError",
  commonFields
) {
  /** @since 0.1.0 */
  get category() {
    return "connection_error";
  }
}, ContextLengthExceeded = class extends TaggedError2(
  "@agent-kernel/ContextLengthExceeded"
)("ContextLengthExceeded", {
  ...commonFields,
  promptTokens: optional(Number$),
  maxTokens: optional(Number$)
}) {
  /** @since 0.1.0 */
  get category() {
    return "context_length_exceeded";
  }
}, AuthError = class extends TaggedError2("@agent-kernel/AuthError")("AuthError", commonFields) {
  /** @since 0.1.0 */
  get category() {
    return "auth_error";
  }
}, InvalidRequest = class extends TaggedError2("@agent-kernel/InvalidRequest")(
  "InvalidRequest",
  commonFields
) {
  /** @since 0.1.0 */
  get category() {
    return "invalid_request";
  }
}, QuotaExceeded = class extends TaggedError2("@agent-kernel/QuotaExceeded")(
  "QuotaExceeded",
  commonFields
) {
  /** @since 0.1.0 */
  get category() {
    return "quota_exceeded";
  }
}, ContentFiltered = class extends TaggedError2("@agent-kernel/ContentFiltered")(
  "ContentFiltered",
  { ...commonFields, partialText: optional(String$) }
) {
  /** @since 0.1.0 */
  get category() {
    return "content_filtered";
  }
}, ProcessCrashed = class extends TaggedError2("@agent-kernel/ProcessCrashed")(
  "ProcessCrashed",
  {
    ...commonFields,
    exitCode: optional(NullOr(Number$)),
    signal: optional(NullOr(String$)),
    stderrTail: optional(String$)
  }
) {
  /** @since 0.1.0 */
  get category() {
    return "process_crashed";
  }
}, Unknown2 = class extends TaggedError2("@agent-kernel/Unknown")("Unknown", commonFields) {
  /** @since 0.1.0 */
  get category() {
    return "unknown";
  }
}, ModelError = Union2(
  RateLimited,
  Overloaded,
  ServerError,
  Timeout,
  ConnectionError,
  ContextLengthExceeded,
  AuthError,
  InvalidRequest,
  QuotaExceeded,
  ContentFiltered,
  ProcessCrashed,
  Unknown2
), constructors = {
  rate_limited: RateLimited,
  overloaded: Overloaded,
  server_error: ServerError,
  timeout: Timeout,
  connection_error: ConnectionError,
  context_length_exceeded: ContextLengthExceeded,
  auth_error: AuthError,
  invalid_request: InvalidRequest,
  quota_exceeded: QuotaExceeded,
  content_filtered: ContentFiltered,
  process_crashed: ProcessCrashed,
  unknown: Unknown2
}, make45 = (category, fields) => {
  let Ctor = constructors[category];
  return new Ctor(stripUndefined(fields));
}, stripUndefined = (fields) => Object.fromEntries(Object.entries(fields).filter(([, value2]) => value2 !== void 0)), isModelError = is(ModelError), isRetryable = (error) => reactionOf(error.category) === "retry" && error.retryable !== !1;

// packages/kernel/src/KernelEvent.ts
var event = (type, fields) => Struct({ type: Literal2(type), at: Number$, ...fields }), RunStatus = Literal2(
  "completed",
  "content_filtered",
  "context_exhausted",
  "auth_error",
  "invalid_request",
  "quota_exceeded",
  "retries_exhausted",
  "retry_budget_exhausted",
  "max_turns",
  "wall_clock_exceeded",
  "cost_exceeded",
  "failed",
  "interrupted"
), RetryCounts = Struct({
  max_per_call: Number$,
  session_total: Number$
}), ErrorSummary = Struct({
  category: Category,
  message: String$,
  status: optional(Number$),
  retry_after_ms: optional(Number$)
}), RunStarted = event("run_started", { run_id: String$, model: String$, input: String$ }), TurnStarted = event("turn_started", { turn: Number$ }), ModelRequested = event("model_request", {
  turn: Number$,
  model: String$,
  attempt: Number$,
  messages: Number$,
  estimated_tokens: Number$,
  tools: Number$
}), ModelResponded = event("model_response", {
  turn: Number$,
  model: String$,
  stop_reason: StopReason,
  usage: Usage,
  duration_ms: Number$
}), RetryScheduled = event("retry_scheduled", {
  turn: Number$,
  model: String$,
  category: Category,
  message: String$,
  attempt: Number$,
  session_retries_used: Number$,
  session_retries_left: Number$,
  delay_ms: Number$,
  retry_after_ms: NullOr(Number$),
  source: Literal2("backoff", "retry_after")
}), RetryQuotaExhausted = event("retry_quota_exhausted", {
  turn: Number$,
  model: String$,
  category: Category,
  message: String$
}), StreamRestarted = event("stream_restarted", {
  turn: Number$,
  model: String$,
  /** The attempt that failed; the next attempt's deltas replace its text. */
  attempt: Number$,
  category: Category,
  /** How many characters of text the failed attempt's deltas showed: a frontend drops them. */
  discarded_text_chars: Number$
}), TextDelta = event("text_delta", {
  turn: Number$,
  model: String$,
  attempt: Number$,
  text: String$
}), ThinkingDelta = event("thinking_delta", {
  turn: Number$,
  model: String$,
  attempt: Number$,
  text: String$
}), ToolUseStarted = event("tool_use_started", {
  turn: Number$,
  id: String$,
  name: String$
}), Fallback = event("fallback", {
  turn: Number$,
  from: String$,
  to: String$,
  category: Category,
  session_retries_used: Number$,
  session_retries_left: Number$
}), ContextReduced = event("context_reduced", {
  turn: Number$,
  before: Number$,
  after: Number$,
  target: NullOr(Number$),
  reductions: Number$
}), ContentFilteredEvent = event("content_filtered", {
  turn: Number$,
  model: String$,
  message: String$,
  partial_text: String$
}), ToolCallStarted = event("tool_call_started", {
  turn: Number$,
  id: String$,
  name: String$
}), ToolResulted = event("tool_result", {
  turn: Number$,
  id: String$,
  name: String$,
  is_error: Boolean$,
  duration_ms: Number$,
  /** The first 2,000 characters of the result. */
  preview: String$
}), BreakerChanged = event("breaker_changed", {
  subject: String$,
  from: Literal2("closed", "open", "half_open"),
  to: Literal2("closed", "open", "half_open"),
  reason: String$
}), Warning2 = event("warning", { message: String$ }), TurnEnded = event("turn_ended", {
  turn: Number$,
  stop_reason: StopReason,
  tool_calls: Number$
}), RunEnded = event("run_ended", {
  run_id: String$,
  status: RunStatus,
  turns: Number$,
  retries: RetryCounts,
  usage: Usage,
  cost_usd: NullOr(Number$),
  wall_ms: Number$,
  error: NullOr(ErrorSummary),
  /** The text of the run's last answer, as `RunOutcome.final_text`. */
  final_text: String$
}), KernelEvent = Union2(
  RunStarted,
  TurnStarted,
  ModelRequested,
  ModelResponded,
  RetryScheduled,
  RetryQuotaExhausted,
  StreamRestarted,
  TextDelta,
  ThinkingDelta,
  ToolUseStarted,
  Fallback,
  ContextReduced,
  ContentFilteredEvent,
  ToolCallStarted,
  ToolResulted,
  BreakerChanged,
  Warning2,
  TurnEnded,
  RunEnded
), stamp = (event2, at) => ({ ...event2, at }), summarize = (error) => ({
  category: error.category,
  message: error.message,
  ...error.status !== void 0 ? { status: error.status } : {},
  ...error.retryAfter !== void 0 ? { retry_after_ms: Math.round(toMillis(error.retryAfter)) } : {}
});

// packages/kernel/src/EventBus.ts
var guard = (effect3) => catchAllCause2(effect3, logFailure), callResponse = (f, response2, info) => {
  try {
    return guard(f(response2, info));
  } catch (defect) {
    return guard(die5(defect));
  }
}, then = (first2, next3) => first2 === void 0 ? next3 : flatMap9(first2, () => next3), of4 = (observers2) => {
  let onEvent = [], onResponse = [];
  for (let observer2 of observers2)
    observer2.onEvent && onEvent.push(observer2.onEvent), observer2.onModelResponse && onResponse.push(observer2.onModelResponse);
  let deliver2 = (events) => onEvent.length === 0 ? _void : deliverAll(onEvent, events, !1);
  return register(onEvent, {
    observed: onEvent.length > 0,
    responseObserved: onResponse.length > 0,
    publish: (event2) => onEvent.length === 0 ? _void : flatMap9(currentTimeMillis2, (at) => deliver2([stamp(event2, at)])),
    deliver: deliver2,
    modelResponded: (response2, info) => onResponse.length === 0 ? _void : suspend3(() => {
      let all7;
      for (let f of onResponse) all7 = then(all7, callResponse(f, response2, info));
      return all7 ?? _void;
    })
  });
}, silent = of4([]), EventBus = class extends Reference2()("@agent-kernel/kernel/EventBus", {
  defaultValue: () => silent
}) {
}, make47 = (observers2 = []) => sync4(() => of4(observers2)), layer2 = (observers2 = []) => sync6(EventBus, () => of4(observers2)), publish2 = (event2) => flatMap9(EventBus, (bus) => bus.publish(event2));

// packages/kernel/src/TokenEstimate.ts
var blockChars = (block) => {
  switch (block.type) {
    case "text":
      return block.text.length;
    case "thinking":
      return block.thinking.length;
    case "tool_use":
      return block.name.length + block.id.length + jsonLength(block.input);
    case "tool_result":
      return block.tool_use_id.length + block.content.length;
    case "redacted_thinking":
      return block.data.length;
    case "image":
    case "document":
      return block.source.type === "url" ? block.source.url.length : block.source.data.length;
  }
}, jsonLength = (value2) => {
  try {
    return JSON.stringify(value2)?.length ?? 0;
  } catch {
    return 0;
  }
}, message = (msg) => {
  let chars = 0;
  for (let block of msg.content) chars += blockChars(block);
  return Math.ceil(chars / 4) + 4 + 3 * msg.content.length;
}, messages = (history) => {
  let total = 0;
  for (let msg of history) total += message(msg);
  return total;
}, requestOverhead = (req) => Math.ceil(((req.system?.length ?? 0) + jsonLength(req.tools)) / 4);

// packages/kernel/src/internal/contextReduction.ts
var isUserInput = (message2) => message2.role === "user" && message2.content.every((block) => block.type !== "tool_result"), dropOldestTurns = (messages2, target) => {
  let latestInput = findLastIndex2(messages2, isUserInput);
  if (latestInput < 0) return none2();
  let suffix = new Array(messages2.length + 1).fill(0);
  for (let i = messages2.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + message(messages2[i]);
  let start3;
  for (let i = 1; i <= latestInput; i++) {
    let msg = messages2[i];
    if (!(msg === void 0 || !isUserInput(msg)) && (start3 = i, suffix[i] <= target))
      return some2(messages2.slice(i));
  }
  let head5 = start3 ?? latestInput, rest = head5 + 1, estimate = suffix[head5];
  for (; messages2.length - rest > 2 && estimate > target; ) {
    let assistant = messages2[rest], results = messages2[rest + 1];
    if (assistant?.role !== "assistant" || results?.role !== "user") break;
    estimate -= suffix[rest] - suffix[rest + 2], rest += 2;
  }
  let current = [messages2[head5], ...messages2.slice(rest)];
  return current.length < messages2.length ? some2(current) : none2();
}, marker = (dropped) => `
[... ${dropped} characters truncated to fit the context window ...]`, truncateToolResults = (messages2, target, minChars) => {
  let before2 = messages(messages2), longest = 0;
  for (let msg of messages2)
    for (let block of msg.content) block.type === "tool_result" && (longest = Math.max(longest, block.content.length));
  if (longest <= minChars) return none2();
  let limit = Math.max(minChars, Math.floor(longest / 2)), current = truncateAt(messages2, limit);
  for (; messages(current) > target && limit > minChars; )
    limit = Math.max(minChars, Math.floor(limit / 2)), current = truncateAt(messages2, limit);
  return messages(current) < before2 ? some2(current) : none2();
}, truncateAt = (messages2, limit) => messages2.map(
  (msg) => msg.content.some((block) => block.type === "tool_result" && block.content.length > limit) ? {
    ...msg,
    content: msg.content.map(
      (block) => block.type === "tool_result" && block.content.length > limit ? { ...block, content: block.content.slice(0, limit) + marker(block.content.length - limit) } : block
    )
  } : msg
), findLastIndex2 = (array5, predicate) => {
  for (let i = array5.length - 1; i >= 0; i--) {
    let item = array5[i];
    if (item !== void 0 && predicate(item)) return i;
  }
  return -1;
};

// packages/kernel/src/ContextProvider.ts
var dropOldestTurns2 = (messages2, request) => sync4(() => dropOldestTurns(messages2, request.targetTokens)), truncateToolResults2 = (options = {}) => (messages2, request) => sync4(() => truncateToolResults(messages2, request.targetTokens, options.minChars ?? 512)), chain = (...reducers) => (messages2, request) => gen2(function* () {
  let before2 = messages(messages2), current = messages2;
  for (let reducer of reducers) {
    if (messages(current) <= request.targetTokens) break;
    let next3 = yield* reducer(current, { ...request, estimatedTokens: messages(current) });
    isSome2(next3) && (current = next3.value);
  }
  return messages(current) < before2 ? some2(current) : none2();
}), make48 = (reduce13) => ({ reduce: reduce13 }), defaultProvider = make48(chain(truncateToolResults2(), dropOldestTurns2)), ContextProvider = class extends Reference2()("@agent-kernel/kernel/ContextProvider", {
  defaultValue: () => defaultProvider
}) {
}, layer3 = (provider) => succeed9(ContextProvider, provider), layerDefault = layer3(defaultProvider), targetFor = (estimatedTokens, counts) => counts.promptTokens !== void 0 && counts.maxTokens !== void 0 && counts.promptTokens > 0 ? Math.floor(estimatedTokens * (counts.maxTokens / counts.promptTokens) * 0.9) : Math.floor(estimatedTokens * 0.75);

// packages/kernel/src/internal/decision.ts
var constructors2 = taggedEnum(), { End, Fallback: Fallback2, Reduce, Retry } = constructors2, stepsPolicy = (error) => isRetryable(error), fatalStatus = (category) => category === "auth_error" ? "auth_error" : category === "quota_exceeded" ? "quota_exceeded" : "invalid_request", beforeTurn = (turns3, bounds) => turns3 >= bounds.max_turns ? some2(End({ status: "max_turns" })) : none2(), timeLeft = (bounds, startedAt, now2) => bounds.max_wall_clock_ms === void 0 ? void 0 : bounds.max_wall_clock_ms - (now2 - startedAt), pastDeadline = End({ status: "wall_clock_exceeded" }), beforeCall = (context5, extraMillis = 0) => {
  let { bounds } = context5, left3 = timeLeft(bounds, context5.startedAt, context5.now + extraMillis);
  return left3 !== void 0 && left3 <= 0 ? some2(pastDeadline) : bounds.max_cost_usd !== void 0 && context5.cost !== null && context5.cost >= bounds.max_cost_usd ? some2(End({ status: "cost_exceeded" })) : none2();
}, afterResponse = (stopReason, toolCalls) => stopReason === "content_filtered" ? some2(End({ status: "content_filtered" })) : toolCalls === 0 ? some2(End({ status: "completed" })) : none2(), afterReduction = (error, before2, after3) => (
  // Only a strictly smaller context may be sent: the same request again would overflow again.
  after3 === void 0 || after3 >= before2 ? some2(End({ status: "context_exhausted", error })) : none2()
), spendsRetry = (decision, before2) => decision._tag === "Retry" || decision._tag === "Fallback" && decision.budget.used > before2.used, afterQuota = (granted, error) => granted ? none2() : some2(End({ status: "retry_budget_exhausted", error })), decide = (error, step4, context5) => {
  switch (reactionOf(error.category)) {
    case "fatal":
      return End({ status: fatalStatus(error.category), error });
    case "surface":
      return End({ status: "content_filtered", error });
    case "fail":
      return End({ status: "failed", error });
    case "reduce_context": {
      let reductions = context5.reductions + 1;
      return reductions > context5.bounds.max_context_reductions ? End({ status: "context_exhausted", error, reductions }) : Reduce({ error, reductions });
    }
    case "retry":
      return retryOrFallback(error, step4, context5);
  }
}, retryOrFallback = (error, step4, context5) => {
  let retryable = isRetryable(error), delayMillis = retryable && isSome2(step4) ? Math.max(
    toMillis(step4.value),
    error.retryAfter === void 0 ? 0 : toMillis(error.retryAfter)
  ) : void 0;
  if (delayMillis === void 0 || delayMillis > context5.bounds.max_retry_wait_ms) {
    if (context5.fallback === void 0) return End({ status: "retries_exhausted", error });
    let broken = beforeCall(context5);
    if (isSome2(broken)) return End({ status: broken.value.status, error });
    if (!retryable) return Fallback2({ to: context5.fallback, budget: context5.budgetState });
    let charged2 = context5.budget.acquire(context5.budgetState);
    return isSome2(charged2) ? Fallback2({ to: context5.fallback, budget: charged2.value }) : End({ status: "retry_budget_exhausted", error });
  }
  let bound = beforeCall(context5, delayMillis);
  if (isSome2(bound)) return End({ status: bound.value.status, error });
  let charged = context5.budget.acquire(context5.budgetState);
  if (isNone2(charged)) return End({ status: "retry_budget_exhausted", error });
  let retryAfterMillis = error.retryAfter === void 0 ? void 0 : toMillis(error.retryAfter);
  return Retry({
    delay: millis(delayMillis),
    source: retryAfterMillis !== void 0 && retryAfterMillis >= delayMillis ? "retry_after" : "backoff",
    budget: charged.value
  });
};

// packages/kernel/src/Decision.ts
var { $is, $match, End: End2, Fallback: Fallback3, Reduce: Reduce2, Retry: Retry2 } = constructors2, stepsPolicy2 = stepsPolicy, decide2 = decide, beforeCall2 = beforeCall, timeLeft2 = timeLeft, pastDeadline2 = pastDeadline, afterReduction2 = afterReduction, spendsRetry2 = spendsRetry, afterQuota2 = afterQuota, beforeTurn2 = beforeTurn, afterResponse2 = afterResponse;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/Metric.js
var counter6 = counter5;
var histogram6 = histogram5, increment2 = increment;
var tagged3 = tagged;

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/MetricBoundaries.js
var fromIterable13 = fromIterable7;

// packages/kernel/src/Metrics.ts
var retries = counter6("agent_kernel_retries_total", {
  description: "Model-call retries scheduled, by error category",
  incremental: !0
}), turns = counter6("agent_kernel_turns_total", {
  description: "Turns started",
  incremental: !0
}), runs = counter6("agent_kernel_runs_total", {
  description: "Runs ended, by status",
  incremental: !0
}), runsTagged = new Map(
  RunStatus.literals.map((status2) => [status2, tagged3(runs, "status", status2)])
), retriesTagged = new Map(
  Category.literals.map((category) => [category, tagged3(retries, "category", category)])
), runsWithStatus = (status2) => runsTagged.get(status2) ?? tagged3(runs, "status", status2), retriesOfCategory = (category) => retriesTagged.get(category) ?? tagged3(retries, "category", category), tokenUsage = histogram6(
  "gen_ai.client.token.usage",
  fromIterable13([
    1,
    4,
    16,
    64,
    256,
    1024,
    4096,
    16384,
    65536,
    262144,
    1048576,
    4194304,
    16777216,
    67108864
  ]),
  "Number of input and output tokens used, per model call"
), secondsBoundaries = fromIterable13([
  0.01,
  0.02,
  0.04,
  0.08,
  0.16,
  0.32,
  0.64,
  1.28,
  2.56,
  5.12,
  10.24,
  20.48,
  40.96,
  81.92
]), operationDuration = histogram6(
  "gen_ai.client.operation.duration",
  secondsBoundaries,
  "Duration of each model call attempt, in seconds"
), turnDuration = histogram6(
  "agent_kernel.turn.duration",
  secondsBoundaries,
  "Duration of each turn, model call and tools, in seconds"
);

// packages/kernel/src/Pricing.ts
var costOf = (usage4, price) => (usage4.input_tokens * price.input_per_mtok + usage4.output_tokens * price.output_per_mtok + (usage4.cache_read_tokens ?? 0) * (price.cache_read_per_mtok ?? price.input_per_mtok) + (usage4.cache_write_tokens ?? 0) * (price.cache_write_per_mtok ?? price.input_per_mtok)) / 1e6, costFor = (prices, model, usage4) => map2(fromNullable(prices[model]), (price) => costOf(usage4, price));

// packages/kernel/src/ResponsePart.ts
var lazyUsage = suspend6(() => Usage), lazyStopReason = suspend6(() => StopReason), TextDelta2 = Struct({
  type: Literal2("text_delta"),
  index: Number$,
  text: String$
}), ThinkingDelta2 = Struct({
  type: Literal2("thinking_delta"),
  index: Number$,
  text: String$
}), ThinkingSignature = Struct({
  type: Literal2("thinking_signature"),
  index: Number$,
  signature: String$
}), RedactedThinking = Struct({
  type: Literal2("redacted_thinking"),
  index: Number$,
  data: String$
}), ToolUseStart = Struct({
  type: Literal2("tool_use_start"),
  index: Number$,
  id: String$,
  name: String$
}), ToolInputDelta = Struct({
  type: Literal2("tool_input_delta"),
  index: Number$,
  json: String$
}), UsagePart = Struct({ type: Literal2("usage"), usage: lazyUsage }), Finish = Struct({
  type: Literal2("finish"),
  stop_reason: lazyStopReason,
  model: optional(String$)
}), ResponsePart = Union2(
  TextDelta2,
  ThinkingDelta2,
  ThinkingSignature,
  RedactedThinking,
  ToolUseStart,
  ToolInputDelta,
  UsagePart,
  Finish
), empty32 = empty31, add7 = add6, toResponse2 = toResponse;
var usage2 = usage, isFinished2 = isFinished;

// packages/kernel/src/RetryBudget.ts
var State = Struct({
  /** Retries granted so far (never decreases). */
  used: Number$,
  /** What is left to spend; a retry costs the budget's own price in tokens. */
  tokens: Number$
}), fixed2 = (max6) => tokenBucket({ capacity: max6, retryCost: 1, successRefund: 0 }), refilling = (max6) => tokenBucket({ capacity: max6, retryCost: 1, successRefund: 1 }), tokenBucket = (options) => {
  let cost = options.retryCost ?? 5, refund = options.successRefund ?? 1;
  return {
    initial: { used: 0, tokens: options.capacity },
    acquire: (state) => state.tokens >= cost ? some2({ used: state.used + 1, tokens: state.tokens - cost }) : none2(),
    recordSuccess: (state) => refund === 0 || state.tokens >= options.capacity ? state : { used: state.used, tokens: Math.min(options.capacity, state.tokens + refund) },
    snapshot: (state) => ({ used: state.used, remaining: Math.floor(state.tokens / cost) })
  };
}, fromSettings = (settings) => settings.max_session_retries === defaults.max_session_retries && settings.session_retries_refill === defaults.session_retries_refill ? defaultBudget : budgetOf(settings), budgetOf = (settings) => settings.session_retries_refill ? refilling(settings.max_session_retries) : fixed2(settings.max_session_retries), defaultBudget = (() => {
  let budget = budgetOf(defaults);
  return Object.freeze(budget.initial), Object.freeze(budget);
})(), RetryBudget = class extends Reference2()("@agent-kernel/kernel/RetryBudget", {
  defaultValue: () => ({ budgetFor: fromSettings })
}) {
};

// packages/kernel/src/RetryPolicy.ts
var backoff = (options) => exponential3(options.base, options.factor ?? 2), capped = (max6) => (self) => {
  let cap = decode(max6);
  return modifyDelay2(self, (_, delay2) => min2(delay2, cap));
}, fullJitter = (self) => jitteredWith2(self, { min: 0, max: 1 }), proportionalJitter = (self) => jittered2(self), jitter = (kind) => (self) => kind === "full" ? fullJitter(self) : kind === "proportional" ? proportionalJitter(self) : self, upTo2 = (retries2) => (self) => intersect6(self, recurs2(retries2)), whileRetryable = (self) => whileInput2(self, isRetryable), honorRetryAfter = (self) => intersect6(self, identity3()).pipe(
  modifyDelay2(
    ([, error], delay2) => error.retryAfter === void 0 ? delay2 : max2(delay2, error.retryAfter)
  ),
  map21(([out]) => out)
), fromSettings2 = (settings) => backoff({ base: millis(settings.base_delay_ms), factor: settings.backoff_factor }).pipe(
  capped(millis(settings.max_delay_ms)),
  jitter(settings.jitter),
  capped(millis(settings.max_delay_ms)),
  upTo2(settings.max_retries),
  whileRetryable,
  honorRetryAfter
), step3 = (policy, now2, error, state) => map16(policy.step(now2, error, state), ([next3, , decision]) => ({
  state: next3,
  delay: isDone4(decision) ? none2() : some2(millis(Math.max(0, start2(decision.intervals) - now2)))
}));

// packages/kernel/src/RetryQuota.ts
var unlimited = { acquire: () => succeed7(!0), recordSuccess: _void };
var RetryQuota = class extends Reference2()("@agent-kernel/kernel/RetryQuota", {
  defaultValue: () => unlimited
}) {
};

// packages/kernel/src/Session.ts
var Session_exports = {};
__export(Session_exports, {
  RunState: () => RunState,
  Session: () => Session,
  State: () => State2,
  SubscriberCapacity: () => SubscriberCapacity,
  defaultSubscriberCapacity: () => defaultSubscriberCapacity2,
  layer: () => layer5,
  make: () => make53
});

// packages/kernel/src/Toolbox.ts
var Toolbox_exports = {};
__export(Toolbox_exports, {
  Toolbox: () => Toolbox,
  empty: () => empty33,
  layer: () => layer4,
  layerEmpty: () => layerEmpty
});
var empty33 = {
  definitions: succeed7([]),
  invoke: (call3) => succeed7(toolResult(call3.id, `Unknown tool "${call3.name}": no tools are available.`, !0))
}, Toolbox = class extends Reference2()("@agent-kernel/kernel/Toolbox", {
  defaultValue: () => empty33
}) {
}, layer4 = (toolbox) => succeed9(Toolbox, toolbox), layerEmpty = layer4(empty33);

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/DefaultServices.js
var liveServices2 = liveServices, currentServices2 = currentServices;

// packages/kernel/src/internal/telemetry.ts
var Attr = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  responseModel: "gen_ai.response.model",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  tokenType: "gen_ai.token.type",
  errorType: "error.type",
  turn: "agent_kernel.turn",
  attempt: "agent_kernel.attempt",
  runId: "agent_kernel.run.id",
  status: "agent_kernel.run.status",
  retryCategory: "agent_kernel.retry.category",
  retryAttempt: "agent_kernel.retry.attempt",
  retryDelayMs: "agent_kernel.retry.delay_ms",
  retrySource: "agent_kernel.retry.source",
  retryAfterMs: "agent_kernel.retry.retry_after_ms",
  budgetUsed: "agent_kernel.retry.budget_used",
  budgetLeft: "agent_kernel.retry.budget_left",
  fallbackFrom: "agent_kernel.fallback.from",
  fallbackTo: "agent_kernel.fallback.to",
  fallbackCategory: "agent_kernel.fallback.category",
  reducedBefore: "agent_kernel.context.tokens_before",
  reducedAfter: "agent_kernel.context.tokens_after",
  reducedTarget: "agent_kernel.context.tokens_target",
  reductions: "agent_kernel.context.reductions"
}, Operation = { chat: "chat", executeTool: "execute_tool", invokeAgent: "invoke_agent" }, SpanName = {
  turn: "agent_kernel.turn",
  retry: "agent_kernel.retry"
}, EventName = {
  fallback: "agent_kernel.fallback",
  contextReduced: "agent_kernel.context_reduced"
}, run4 = (spans, options) => {
  let span2 = spans.start(Operation.invokeAgent, "internal", void 0);
  if (span2 !== void 0)
    return span2.attribute(Attr.operationName, Operation.invokeAgent), span2.attribute(Attr.providerName, options.provider), span2.attribute(Attr.conversationId, options.session), span2.attribute(Attr.requestModel, options.model), span2.attribute(Attr.runId, options.runId), span2;
}, runEnded = (status2, error) => error === void 0 ? { [Attr.status]: status2 } : { [Attr.status]: status2, [Attr.errorType]: error.category }, turn = (spans, parent, turn2) => {
  let span2 = spans.start(SpanName.turn, "internal", parent);
  return span2?.attribute(Attr.turn, turn2), span2;
}, modelCall = (spans, parent, provider, request, info) => {
  let span2 = spans.start(`${Operation.chat} ${request.model}`, "client", parent);
  if (span2 !== void 0)
    return span2.attribute(Attr.operationName, Operation.chat), span2.attribute(Attr.providerName, provider), span2.attribute(Attr.requestModel, request.model), span2.attribute(Attr.turn, info.turn), span2.attribute(Attr.attempt, info.attempt), request.max_output_tokens !== void 0 && span2.attribute(Attr.requestMaxTokens, request.max_output_tokens), span2;
}, modelCallEnded = (exit4) => {
  if (isSuccess(exit4)) {
    let { model, stop_reason, usage: usage4 } = exit4.value, attributes = {
      [Attr.responseModel]: model,
      [Attr.responseFinishReasons]: [stop_reason],
      [Attr.inputTokens]: usage4.input_tokens,
      [Attr.outputTokens]: usage4.output_tokens
    };
    return usage4.cache_read_tokens !== void 0 && (attributes[Attr.cacheReadTokens] = usage4.cache_read_tokens), usage4.cache_write_tokens !== void 0 && (attributes[Attr.cacheWriteTokens] = usage4.cache_write_tokens), attributes;
  }
  return { [Attr.errorType]: errorTypeOf(exit4.cause) };
}, errorTypeOf = (cause2) => {
  let failure = failureOption2(cause2);
  return isSome2(failure) ? failure.value.category : isInterruptedOnly2(cause2) ? "interrupted" : "unknown";
}, toolCall = (spans, parent, call3, turn2) => {
  let span2 = spans.start(`${Operation.executeTool} ${call3.name}`, "internal", parent);
  if (span2 !== void 0)
    return span2.attribute(Attr.operationName, Operation.executeTool), span2.attribute(Attr.toolName, call3.name), span2.attribute(Attr.toolCallId, call3.id), span2.attribute(Attr.toolType, "function"), span2.attribute(Attr.turn, turn2), span2;
}, ToolErrorResult = class extends TaggedError("ToolErrorResult") {
}, toolCallExit = (exit4) => isSuccess(exit4) && exit4.value.is_error ? fail3(new ToolErrorResult({ message: exit4.value.content })) : exit4, toolCallEnded = (exit4) => isFailure(exit4) ? { [Attr.errorType]: errorTypeOf(exit4.cause) } : exit4.value.is_error ? { [Attr.errorType]: "tool_error" } : void 0, retry3 = (spans, parent, options) => {
  let span2 = spans.start(SpanName.retry, "internal", parent);
  if (span2 !== void 0)
    return span2.attribute(Attr.requestModel, options.model), span2.attribute(Attr.errorType, options.error.category), span2.attribute(Attr.retryCategory, options.error.category), span2.attribute(Attr.retryAttempt, options.attempt), span2.attribute(Attr.retryDelayMs, options.delayMs), span2.attribute(Attr.retrySource, options.source), span2.attribute(Attr.budgetUsed, options.budget.used), span2.attribute(Attr.budgetLeft, options.budget.remaining), options.error.retryAfter !== void 0 && span2.attribute(Attr.retryAfterMs, toMillis(options.error.retryAfter)), span2;
}, fallback = (options) => ({
  [Attr.fallbackFrom]: options.from,
  [Attr.fallbackTo]: options.to,
  [Attr.fallbackCategory]: options.category,
  [Attr.budgetUsed]: options.budget.used,
  [Attr.budgetLeft]: options.budget.remaining
}), contextReduced = (options) => ({
  [Attr.reducedBefore]: options.before,
  [Attr.reducedAfter]: options.after,
  [Attr.reducedTarget]: options.target,
  [Attr.reductions]: options.reductions
});

// packages/kernel/src/internal/effects.ts
var describeDefect = (defect) => defect instanceof Error ? defect.message || defect.name : typeof defect == "string" ? defect : String(defect), noAnnotations = [], disabledSpans = { enabled: !1, start: () => {
}, end: () => {
}, event: () => {
} }, spansOf = (fiber) => {
  if (!fiber.getFiberRef(currentTracerEnabled2)) return disabledSpans;
  let tracer2 = fiber.currentTracer, clock3 = get5(fiber.currentDefaultServices, Clock), timing = fiber.getFiberRef(currentTracerTimingEnabled2), annotated = fiber.getFiberRef(currentTracerSpanAnnotations2), annotations2 = size4(annotated) === 0 ? noAnnotations : Array.from(annotated), links = toReadonlyArray(fiber.getFiberRef(currentTracerSpanLinks2)), now2 = () => timing ? clock3.unsafeCurrentTimeNanos() : BigInt(0), options = { captureStackTrace: !1 }, parentOf, parentOption = none2(), optionOf = (parent) => parent === void 0 || isDisabled2(parent) ? none2() : (parent !== parentOf && (parentOf = parent, parentOption = some2(parent)), parentOption);
  return {
    enabled: !0,
    start: (name, kind, parent) => {
      let span2 = tracer2.span(name, optionOf(parent), empty9(), links, now2(), kind, options);
      for (let i = 0; i < annotations2.length; i++) span2.attribute(annotations2[i][0], annotations2[i][1]);
      return span2;
    },
    end: (span2, exit4, attributes) => {
      if (!(span2 === void 0 || span2.status._tag !== "Started")) {
        if (attributes !== void 0) for (let key in attributes) span2.attribute(key, attributes[key]);
        span2.end(now2(), exit4);
      }
    },
    event: (span2, name, attributes) => {
      span2 !== void 0 && span2.status._tag === "Started" && span2.event(name, now2(), attributes);
    }
  };
}, isDisabled2 = (span2) => get5(span2.context, DisablePropagation2), attempt = (f, input2) => {
  try {
    return f(input2);
  } catch (defect) {
    return die5(defect);
  }
}, starter = (runtime4) => {
  let { runtimeFlags: runtimeFlags2 } = runtime4, fiberRefs3 = delete_2(runtime4.fiberRefs, currentContext2), untraced = make42({ context: runtime4.context, fiberRefs: fiberRefs3, runtimeFlags: runtimeFlags2 }), services = Array.from(runtime4.context.unsafeMap);
  return (span2, effect3) => runFork3(
    span2 === void 0 ? untraced : make42({
      context: unsafeMake(new Map(services).set(ParentSpan.key, span2)),
      fiberRefs: fiberRefs3,
      runtimeFlags: runtimeFlags2
    }),
    effect3,
    immediately
  );
}, immediately = { immediate: !0 }, settle = (runtime4, clock3, call3, ended, timeout3) => {
  let wait = new Wait(call3);
  return uninterruptibleMask3(
    (restore) => catchAllCause2(
      restore(
        async2((resume2) => {
          timeout3 !== void 0 && (wait.timer = arm(runtime4, clock3, timeout3, wait)), call3.addObserver((exit4) => {
            wait.timer?.cancel(), ended(exit4), resume2(
              succeed7(
                wait.expired && timeout3 !== void 0 && isFailure(exit4) && isNone2(failureOption2(exit4.cause)) ? timeout3.exit() : exit4
              )
            );
          });
        })
      ),
      (cause2) => matchCauseEffect3(
        flatMap9(interrupt5(call3), () => wait.timer?.stopped ?? _void),
        {
          onFailure: (stopping) => failCause6(sequential4(cause2, stopping)),
          onSuccess: () => failCause6(cause2)
        }
      )
    )
  );
}, Wait = class {
  /** Whether the timer fired while the call still ran. */
  expired = !1;
  timer = void 0;
  call;
  constructor(call3) {
    this.call = call3;
  }
  expire() {
    this.call.unsafePoll() === null && (this.expired = !0, this.call.unsafeInterruptAsFork(none4));
  }
}, liveClock = get5(liveServices2, Clock), maxTimerMillis = 2 ** 31 - 1, neverFires = { cancel: () => {
}, stopped: _void }, arm = (runtime4, clock3, timeout3, target) => {
  let { after: after3, held } = timeout3;
  if (clock3 !== liveClock) {
    let fiber = runFork3(runtime4, held === void 0 ? sleep4(after3) : sleepUnheld(after3, held), {
      immediate: !0
    });
    return fiber.addObserver((exit4) => {
      isSuccess(exit4) && target.expire();
    }), { cancel: () => fiber.unsafeInterruptAsFork(none4), stopped: interrupt5(fiber) };
  }
  let budget = toMillis(after3);
  return budget > maxTimerMillis ? neverFires : new LiveTimer(budget, clock3, held, target);
}, LiveTimer = class {
  handle;
  budget;
  start;
  clock;
  held;
  target;
  constructor(budget, clock3, held, target) {
    this.budget = budget, this.clock = clock3, this.held = held, this.target = target, this.start = clock3.unsafeCurrentTimeMillis(), this.handle = setTimeout(fireLive, budget, this);
  }
  fire() {
    let wait = this.held === void 0 ? void 0 : unheldWait(this.budget, this.start, this.clock.unsafeCurrentTimeMillis(), this.held);
    wait === void 0 ? this.target.expire() : this.handle = setTimeout(fireLive, wait, this);
  }
  cancel() {
    clearTimeout(this.handle);
  }
  /** Made when a wait is interrupted, the only time it is asked for. */
  get stopped() {
    return sync4(() => this.cancel());
  }
}, fireLive = (timer2) => timer2.fire(), heldRecheckMillis = 10, unheldWait = (budget, start3, now2, held) => {
  let holding2 = held.since === void 0 ? 0 : now2 - held.since, left3 = budget - (now2 - start3 - held.millis - holding2);
  if (!(left3 <= 0 && held.since === void 0))
    return Math.max(left3, heldRecheckMillis);
}, sleepUnheld = (after3, held) => clockWith4((clock3) => {
  let budget = toMillis(after3), start3 = clock3.unsafeCurrentTimeMillis(), wait = suspend3(() => {
    let left3 = unheldWait(budget, start3, clock3.unsafeCurrentTimeMillis(), held);
    return left3 === void 0 ? _void : zipRight3(sleep4(millis(left3)), wait);
  });
  return wait;
}), holding = (held, observation) => clockWith4((clock3) => (held.since = clock3.unsafeCurrentTimeMillis(), ensuring2(
  observation,
  sync4(() => {
    held.millis += clock3.unsafeCurrentTimeMillis() - (held.since ?? 0), held.since = void 0;
  })
))), make49 = (options) => {
  let { provider, toolbox, runtime: runtime4, spans, attemptTimeout } = options, start3 = starter(runtime4), clock3 = get5(getOrDefault2(runtime4.fiberRefs, currentServices2), Clock), timedOut = (model) => fail3(
    new Timeout({
      provider: provider.name,
      model,
      message: `the attempt took longer than model_attempt_timeout_ms (${toMillis(attemptTimeout)} ms)`
    })
  ), modelEnded = (span2, exit4) => {
    span2 !== void 0 && spans.end(span2, exit4, modelCallEnded(exit4));
  }, modelResulted = (exit4, request, info) => {
    let result = modelResult(exit4, provider.name, request.model), observe = provider.generate === void 0 ? void 0 : info.observeResponse;
    if (observe === void 0 || isFailure(exit4)) return result;
    let observed = observe(exit4.value);
    return observed === _void ? result : flatMap9(observed, () => result);
  }, invoke2 = (call3) => toolbox.invoke(call3), toolEnded = (span2, exit4) => {
    span2 !== void 0 && spans.end(span2, toolCallExit(exit4), toolCallEnded(exit4));
  };
  return {
    model: (request, info) => suspend3(() => {
      let span2 = spans.enabled ? modelCall(spans, info.parent, provider.name, request, info) : void 0, held = info.observe === void 0 || provider.generate !== void 0 ? void 0 : { millis: 0, since: void 0 }, fiber = start3(span2, call2(provider, request, info.observe, held)), exit4 = fiber.unsafePoll();
      return exit4 !== null ? (modelEnded(span2, exit4), modelResulted(exit4, request, info)) : flatMap9(
        settle(runtime4, clock3, fiber, (exit5) => modelEnded(span2, exit5), {
          after: attemptTimeout,
          exit: () => timedOut(request.model),
          held
        }),
        (exit5) => modelResulted(exit5, request, info)
      );
    }),
    tool: (call3, info) => suspend3(() => {
      let invoked = attempt(invoke2, call3);
      if (!spans.enabled)
        return matchCauseEffect3(invoked, {
          onSuccess: (result) => succeed7(answering(result, call3)),
          onFailure: (cause2) => toolFailed(cause2, call3)
        });
      let span2 = toolCall(spans, info.parent, call3, info.turn), fiber = start3(span2, invoked), exit4 = fiber.unsafePoll();
      return exit4 !== null ? (toolEnded(span2, exit4), toolResult2(exit4, call3)) : flatMap9(
        settle(runtime4, clock3, fiber, (exit5) => toolEnded(span2, exit5)),
        (exit5) => toolResult2(exit5, call3)
      );
    }),
    sleep: sleep4
  };
}, call2 = (provider, request, observe, held) => {
  if (observe === void 0) return attempt((request2) => generate(provider, request2), request);
  let generate2 = provider.generate;
  if (generate2 !== void 0) return attempt(generate2, request);
  let reached = empty32, folded = runFoldEffect2(
    suspend10(() => provider.stream(request)),
    empty32,
    (state, part) => {
      reached = add7(state, part);
      let observed = observe(part, reached);
      return observed === _void ? succeed7(reached) : as4(held === void 0 ? observed : holding(held, observed), reached);
    }
  ).pipe(mapError2((error) => keepPartialText(error, reached)));
  return flatMap9(
    folded,
    (state) => isFinished2(state) ? succeed7(toResponse2(state, request.model)) : fail6(unfinished(provider.name, request.model, usage2(state)))
  );
}, modelResult = (exit4, provider, model) => {
  if (isSuccess(exit4)) return succeed7(right2(exit4.value));
  let failure = failureOption2(exit4.cause);
  return isSome2(failure) ? succeed7(left2(failure.value)) : isInterruptedOnly2(exit4.cause) ? interrupt6 : succeed7(
    left2(
      new Unknown2({
        provider,
        model,
        message: `the provider failed unexpectedly: ${describeDefect(squash(exit4.cause))}`
      })
    )
  );
}, toolResult2 = (exit4, call3) => {
  if (isFailure(exit4)) return toolFailed(exit4.cause, call3);
  let result = answering(exit4.value, call3);
  return result === exit4.value ? exit4 : succeed7(result);
}, answering = (result, call3) => result.tool_use_id === call3.id ? result : { ...result, tool_use_id: call3.id }, toolFailed = (cause2, call3) => isInterruptedOnly2(cause2) ? interrupt6 : succeed7(
  toolResult(call3.id, `Tool "${call3.name}" failed unexpectedly: ${pretty2(cause2)}`, !0)
);

// packages/kernel/src/internal/log.ts
var fromArray = (items) => ({ backing: items.slice(), length: items.length }), append4 = (self, item) => {
  let backing = self.backing.length === self.length ? self.backing : self.backing.slice(0, self.length);
  return backing.push(item), { backing, length: self.length + 1 };
}, toArray3 = (self) => self.backing.slice(0, self.length), last5 = (self) => self.length === 0 ? void 0 : self.backing[self.length - 1];

// packages/kernel/src/internal/sessionState.ts
var clamped = (state, budget) => state.tokens > budget.initial.tokens ? { used: state.used, tokens: budget.initial.tokens } : state, initial = (options, budget) => {
  let resumed = options.state, history = resumed?.history ?? options.history ?? [], context5 = resumed?.context ?? history;
  return {
    history: fromArray(history),
    context: fromArray(context5),
    contextTokens: messages(context5),
    budget: resumed === void 0 ? budget.initial : clamped(resumed.budget, budget),
    runs: resumed?.runs ?? 0,
    run: resumed?.run ?? null
  };
}, toPublic = (state) => ({
  history: toArray3(state.history),
  context: toArray3(state.context),
  budget: state.budget,
  runs: state.runs,
  run: state.run
}), startRun = (state, sessionId, startedAt, input2) => appended(state, input2, state.budget, state.runs + 1, {
  run_id: `${sessionId}/run-${state.runs + 1}`,
  started_at: startedAt,
  turns: 0,
  attempt: 0,
  model_index: 0,
  retries: 0,
  max_per_call: 0,
  usage: emptyUsage,
  cost_usd: null,
  reductions: 0,
  final_text: "",
  unpriced: []
}), figures = (state) => {
  if (state.run === null) throw new Error("agent-kernel: a run's figures were read outside a run");
  return state.run;
}, patch9 = (run7, p) => ({
  run_id: run7.run_id,
  started_at: run7.started_at,
  turns: p.turns ?? run7.turns,
  attempt: p.attempt ?? run7.attempt,
  model_index: p.model_index ?? run7.model_index,
  retries: p.retries ?? run7.retries,
  max_per_call: p.max_per_call ?? run7.max_per_call,
  usage: p.usage ?? run7.usage,
  cost_usd: p.cost_usd === void 0 ? run7.cost_usd : p.cost_usd,
  reductions: p.reductions ?? run7.reductions,
  final_text: p.final_text ?? run7.final_text,
  unpriced: p.unpriced ?? run7.unpriced
}), withFigures = (state, run7) => ({
  history: state.history,
  context: state.context,
  contextTokens: state.contextTokens,
  budget: state.budget,
  runs: state.runs,
  run: run7
}), withRun = (state, run7) => withFigures(state, patch9(figures(state), run7)), attemptOf = (run7, turns3, attempt2, model_index, retries2) => ({
  run_id: run7.run_id,
  started_at: run7.started_at,
  turns: turns3,
  attempt: attempt2,
  model_index,
  retries: retries2,
  max_per_call: run7.max_per_call,
  usage: run7.usage,
  cost_usd: run7.cost_usd,
  reductions: run7.reductions,
  final_text: run7.final_text,
  unpriced: run7.unpriced
}), turnStarted = (state, turn2) => withFigures(state, attemptOf(figures(state), turn2, 0, 0, 0)), attempting = (state, attempt2) => {
  let run7 = figures(state);
  return withFigures(state, attemptOf(run7, run7.turns, attempt2, run7.model_index, run7.retries));
};
function appended(state, message2, budget, runs2, run7) {
  return {
    history: append4(state.history, message2),
    context: append4(state.context, message2),
    contextTokens: state.contextTokens + message(message2),
    budget,
    runs: runs2,
    run: run7
  };
}
var append5 = (state, message2) => appended(state, message2, state.budget, state.runs, state.run), answered = (state, message2, budget, spent, text3) => {
  let run7 = figures(state);
  return appended(state, message2, budget, state.runs, {
    run_id: run7.run_id,
    started_at: run7.started_at,
    turns: run7.turns,
    attempt: run7.attempt,
    model_index: run7.model_index,
    retries: run7.retries,
    max_per_call: run7.max_per_call,
    usage: spent.usage,
    cost_usd: spent.cost_usd,
    reductions: run7.reductions,
    final_text: text3.length > 0 ? text3 : run7.final_text,
    unpriced: spent.unpriced
  });
}, resultsFor = (calls, results, reason) => allBack(calls, results) ? results : calls.map((call3, i) => results[i] ?? toolResult(call3.id, reason, !0)), allBack = (calls, results) => {
  if (results.length !== calls.length) return !1;
  for (let i = 0; i < results.length; i++) if (results[i] === void 0) return !1;
  return !0;
}, answerPending = (state, reason, results = []) => {
  let last6 = last5(state.history), pending2 = last6?.role === "assistant" ? toolUses(last6) : [];
  return pending2.length === 0 ? state : append5(state, { role: "user", content: resultsFor(pending2, results, reason) });
};

// packages/kernel/src/internal/toolIds.ts
var idOf = (block) => block.type === "tool_use" ? block.id : void 0, taken = (blocks, index, id2) => {
  if (id2 === "") return !0;
  for (let i = 0; i < index; i++) if (idOf(blocks[i]) === id2) return !0;
  return !1;
}, used = (blocks, id2) => blocks.some((block) => idOf(block) === id2), uniqueOf = (blocks, run7, turn2, rename2) => {
  let renamed2;
  for (let i = 0; i < blocks.length; i++) {
    let block = blocks[i], own = idOf(block);
    if (own === void 0 || !taken(renamed2 ?? blocks, i, own)) continue;
    renamed2 ??= blocks.slice();
    let base = own === "" ? "tool" : own, n = i, id2 = `${base}_${run7}.${turn2}.${n}`;
    for (; used(renamed2, id2) || used(blocks, id2); ) id2 = `${base}_${run7}.${turn2}.${++n}`;
    renamed2[i] = rename2(block, id2);
  }
  return renamed2 ?? blocks;
}, renameBlock = (block, id2) => block.type === "tool_use" ? { ...block, id: id2 } : block, unique = (content, run7, turn2) => uniqueOf(content, run7, turn2, renameBlock);

// packages/kernel/src/internal/loop.ts
var Ended = class extends TaggedClass("Ended") {
}, offer4 = (env, events) => {
  let hub = env.listeners.hub;
  if (hub === void 0) return _void;
  for (let i = 0; i < events.length; i++)
    if (!hub.unsafeOffer(events[i]))
      return uninterruptible2(asVoid2(publishAll2(hub, events.slice(i))));
  return _void;
}, listening = (env) => env.bus.observed || env.listeners.subscribers > 0, now = (run7) => run7.clock.unsafeCurrentTimeMillis(), noEvents = [], note = (cursor, event2) => {
  let events = cursor.events;
  cursor.events = events.length === 0 ? [event2] : events.length === 1 ? [events[0], event2] : [...events, event2];
}, commit = (env, cursor) => {
  if (set2(env.state, cursor.state), cursor.events.length === 0) return _void;
  let events = cursor.events;
  return cursor.events = noEvents, deliver(env, events);
}, deliver = (env, events) => {
  let offered = offer4(env, events);
  return env.bus.observed ? offered === _void ? deliverStarted(env.bus, events) : zipRight3(offered, env.bus.deliver(events)) : offered;
}, end4 = (run7, cursor, ending) => {
  let ended = failCause6(fail4(new Ended({ ending }))), committed = commit(run7.env, cursor);
  return committed === _void ? ended : flatMap9(committed, () => ended);
}, defaultPolicy = fromSettings2(defaults), policyOf = (env) => env.policy ?? (env.settings === defaults ? defaultPolicy : fromSettings2(env.settings)), PREVIEW_CHARS = 2e3, pendingReasons = {
  interrupted: "The run was interrupted before this tool returned.",
  content_filtered: "The provider's content filter stopped the response; this tool was not run.",
  wall_clock_exceeded: "The run's wall-clock bound was reached before this tool returned."
}, pendingReason = (status2) => pendingReasons[status2] ?? "The run failed before this tool returned.", turns2 = (run7, cursor) => gen2(() => eachTurn(run7, cursor)), turnEnded = (run7, cursor, turn2, span2, startedAt, at, stopReason, toolCalls) => {
  listening(run7.env) && note(cursor, { type: "turn_ended", at, turn: turn2, stop_reason: stopReason, tool_calls: toolCalls }), run7.spans.end(span2, void_3), cursor.turnSpan = void 0, run7.env.metrics && run7.env.meter.turn(at - startedAt);
};
function* eachTurn(run7, cursor) {
  let { env } = run7;
  for (; ; ) {
    let bound = beforeTurn2(figures(cursor.state).turns, env.settings);
    if (isSome2(bound)) return yield* end4(run7, cursor, bound.value);
    let turn2 = figures(cursor.state).turns + 1;
    cursor.state = turnStarted(cursor.state, turn2);
    let span2 = run7.spans.enabled ? turn(run7.spans, run7.runSpan, turn2) : void 0, turnStartedAt = now(run7);
    cursor.turnSpan = span2, listening(env) && note(cursor, { type: "turn_started", at: turnStartedAt, turn: turn2 });
    let called, retrying;
    for (; ; ) {
      let figures2 = figures(cursor.state), callBound = beforeCall2({
        now: now(run7),
        startedAt: figures2.started_at,
        bounds: env.settings,
        cost: figures2.cost_usd
      });
      if (isSome2(callBound)) return yield* end4(run7, cursor, callBound.value);
      retrying?.overflow !== void 0 && (yield* reduceContext(run7, cursor, turn2, retrying.overflow), retrying.overflow = void 0);
      let model = env.models[figures2.model_index] ?? env.model, assembled = env.contextProvider.assemble === void 0 ? void 0 : yield* env.contextProvider.assemble(toArray3(cursor.state.context)), tools = yield* env.toolbox.definitions, request2 = requestOf(model, cursor.state.context, assembled, tools, env), attempt2 = figures2.attempt + 1;
      cursor.state = attempting(cursor.state, attempt2), listening(env) && note(cursor, {
        type: "model_request",
        at: now(run7),
        turn: turn2,
        model,
        attempt: attempt2,
        messages: assembled === void 0 ? cursor.state.context.length : assembled.length,
        estimated_tokens: overheadOf(cursor, request2) + (assembled === void 0 ? cursor.state.contextTokens : messages(assembled)),
        tools: tools.length
      });
      let committed = commit(env, cursor);
      committed !== _void && (yield* committed);
      let sentAt = now(run7), shown = { textChars: 0, ids: void 0, content: void 0 }, attempted = run7.effects.model(
        request2,
        listening(env) ? {
          turn: turn2,
          attempt: attempt2,
          parent: span2,
          observe: observer(run7, turn2, model, attempt2, shown),
          observeResponse: responseObserver(run7, turn2, model, attempt2, shown)
        } : { turn: turn2, attempt: attempt2, parent: span2 }
      ), result;
      if (env.settings.max_wall_clock_ms === void 0) result = yield* attempted;
      else {
        let bounded6 = yield* withinDeadline(run7, cursor, attempted);
        if (isNone2(bounded6)) return yield* end4(run7, cursor, pastDeadline2);
        result = bounded6.value;
      }
      let returnedAt = now(run7);
      if (env.metrics && env.meter.modelCall(model, returnedAt - sentAt, result), isRight2(result)) {
        let response3 = result.right;
        run7.quota !== unlimited && (yield* run7.quota.recordSuccess), listening(env) && note(cursor, {
          type: "model_response",
          at: returnedAt,
          turn: turn2,
          model,
          stop_reason: response3.stop_reason,
          usage: response3.usage,
          duration_ms: returnedAt - sentAt
        });
        let content2 = shown.content?.of === response3 ? shown.content.content : unique(response3.content, run7.runNumber, turn2);
        called = { request: request2, response: response3, content: content2 };
        break;
      }
      retrying ??= { stepper: void 0, overflow: void 0 }, yield* afterFailure(run7, cursor, turn2, span2, model, attempt2, shown, returnedAt, result.left, retrying);
    }
    let { request, response: response2, content } = called, message2 = { role: "assistant", content }, text3 = textOf(message2);
    cursor.state = answered(
      cursor.state,
      message2,
      env.budget.recordSuccess(cursor.state.budget),
      accounted(run7, cursor, response2.usage, request.model),
      text3
    ), env.bus.responseObserved && (yield* commit(env, cursor), yield* env.bus.modelResponded(content === response2.content ? response2 : { ...response2, content }, {
      runId: run7.runId,
      turn: turn2,
      request
    }));
    let calls = toolUses(message2), after3 = afterResponse2(response2.stop_reason, calls.length);
    if (isSome2(after3)) {
      let filtered = after3.value.status === "content_filtered", at = now(run7);
      return filtered && listening(env) && note(cursor, {
        type: "content_filtered",
        at,
        turn: turn2,
        model: request.model,
        message: "the provider's content filter stopped the response",
        partial_text: text3
      }), turnEnded(run7, cursor, turn2, span2, turnStartedAt, at, response2.stop_reason, filtered ? 0 : calls.length), yield* end4(run7, cursor, after3.value);
    }
    let results = toolsStarting(cursor, calls), finished = !0;
    if (env.toolConcurrency === 1 && env.settings.max_wall_clock_ms === void 0 ? yield* toolsInOrder(run7, cursor, turn2, span2, calls, results) : finished = isSome2(
      yield* withinDeadline(
        run7,
        cursor,
        env.toolConcurrency === 1 ? gen2(() => toolsInOrder(run7, cursor, turn2, span2, calls, results)) : toolsAtOnce(run7, cursor, turn2, span2, calls, results)
      )
    ), toolsDone(cursor, calls, results), !finished) return yield* end4(run7, cursor, pastDeadline2);
    turnEnded(run7, cursor, turn2, span2, turnStartedAt, now(run7), response2.stop_reason, calls.length);
    let ended = commit(env, cursor);
    ended !== _void && (yield* ended);
  }
}
function* withinDeadline(run7, cursor, effect3) {
  let left3 = timeLeft2(run7.env.settings, figures(cursor.state).started_at, now(run7));
  return left3 === void 0 ? some2(yield* effect3) : left3 <= 0 ? none2() : yield* timeoutOption2(effect3, millis(left3));
}
var toolsStarting = (cursor, calls) => {
  let results = new Array(calls.length);
  return cursor.running = { calls, results }, results;
}, toolsDone = (cursor, calls, results) => {
  cursor.running = void 0, cursor.state = append5(cursor.state, {
    role: "user",
    content: resultsFor(calls, results, pendingReason("wall_clock_exceeded"))
  });
}, toolsAtOnce = (run7, cursor, turn2, span2, calls, results) => suspend3(() => {
  let indexes = runIndexes(calls);
  return flatMap9(
    commit(run7.env, cursor),
    () => forEach7(
      calls,
      (call3, index) => {
        let startedAt = now(run7);
        return flatMap9(
          publishNow(run7, { type: "tool_call_started", at: startedAt, turn: turn2, id: call3.id, name: call3.name }),
          () => flatMap9(invoke(run7, call3, turn2, indexes[index], span2), (result) => (results[index] = result, publishNow(run7, toolResulted(turn2, call3, result, startedAt, now(run7)))))
        );
      },
      { concurrency: run7.env.toolConcurrency, discard: !0 }
    )
  );
});
function* toolsInOrder(run7, cursor, turn2, span2, calls, results) {
  let { env } = run7, ran = 0;
  for (let index = 0; index < calls.length; index++) {
    let call3 = calls[index], startedAt = now(run7);
    listening(env) && note(cursor, { type: "tool_call_started", at: startedAt, turn: turn2, id: call3.id, name: call3.name });
    let committed = commit(env, cursor);
    committed !== _void && (yield* committed);
    let result = yield* invoke(run7, call3, turn2, ran, span2);
    call3.invalid_input === void 0 && ran++, results[index] = result, listening(env) && note(cursor, toolResulted(turn2, call3, result, startedAt, now(run7)));
  }
}
var runIndexes = (calls) => {
  let indexes = [], next3 = 0;
  for (let call3 of calls)
    indexes.push(next3), call3.invalid_input === void 0 && next3++;
  return indexes;
}, invoke = (run7, call3, turn2, index, parent) => call3.invalid_input === void 0 ? run7.effects.tool(call3, { turn: turn2, index, parent }) : succeed7(
  toolResult(
    call3.id,
    `The input of this call to "${call3.name}" was not a valid JSON object, so the tool was not run. Input received: ${call3.invalid_input.slice(0, PREVIEW_CHARS)}`,
    !0
  )
), toolResulted = (turn2, call3, result, startedAt, at) => ({
  type: "tool_result",
  at,
  turn: turn2,
  id: call3.id,
  name: call3.name,
  is_error: result.is_error,
  duration_ms: at - startedAt,
  preview: result.content.slice(0, PREVIEW_CHARS)
}), publishNow = (run7, event2) => suspend3(() => listening(run7.env) ? deliver(run7.env, [event2]) : _void), accounted = (run7, cursor, usage4, model) => {
  let { settings } = run7.env, figures2 = figures(cursor.state), cost = costFor(settings.prices, model, usage4), warn = isNone2(cost) && settings.max_cost_usd !== void 0 && !figures2.unpriced.includes(model);
  return warn && listening(run7.env) && note(cursor, {
    type: "warning",
    at: now(run7),
    message: `no price for model "${model}" in settings.prices: max_cost_usd does not count its calls`
  }), {
    usage: addUsage(figures2.usage, usage4),
    cost_usd: isSome2(cost) ? (figures2.cost_usd ?? 0) + cost.value : figures2.cost_usd,
    unpriced: warn ? [...figures2.unpriced, model] : figures2.unpriced
  };
}, requestOf = (model, context5, assembled, tools, env) => {
  let messages2 = assembled, request = {
    model,
    tools,
    get messages() {
      return messages2 === void 0 && (messages2 = toArray3(context5)), messages2;
    }
  };
  return env.system !== void 0 && Object.assign(request, { system: env.system }), env.maxOutputTokens !== void 0 && Object.assign(request, { max_output_tokens: env.maxOutputTokens }), env.request !== void 0 && Object.assign(request, env.request), request;
}, overheadOf = (cursor, request) => ((cursor.tools === void 0 || !sameDefinitions(cursor.tools.definitions, request.tools)) && (cursor.tools = { definitions: Array.from(request.tools), tokens: requestOverhead(request) }), cursor.tools.tokens), sameDefinitions = (seen, tools) => {
  if (seen.length !== tools.length) return !1;
  for (let i = 0; i < seen.length; i++) if (seen[i] !== tools[i]) return !1;
  return !0;
};
function* afterFailure(run7, cursor, turn2, span2, model, attempt2, shown, returnedAt, error, retrying) {
  let { env } = run7;
  error.usage !== void 0 && (cursor.state = withRun(cursor.state, accounted(run7, cursor, error.usage, model)));
  let delay2 = none2(), scheduleState;
  if (stepsPolicy2(error)) {
    if (retrying.stepper === void 0) {
      let policy = policyOf(env);
      retrying.stepper = { policy, state: policy.initial };
    }
    let step4 = yield* step3(retrying.stepper.policy, returnedAt, error, retrying.stepper.state);
    delay2 = step4.delay, scheduleState = step4.state;
  }
  let current = figures(cursor.state), decision = decide2(error, delay2, {
    now: returnedAt,
    startedAt: current.started_at,
    bounds: env.settings,
    cost: current.cost_usd,
    reductions: current.reductions,
    fallback: env.models[current.model_index + 1],
    budget: env.budget,
    budgetState: cursor.state.budget
  });
  if (spendsRetry2(decision, cursor.state.budget)) {
    let granted = yield* run7.quota.acquire({ model, category: error.category }), refused = afterQuota2(granted, error);
    if (isSome2(refused))
      return listening(env) && note(cursor, {
        type: "retry_quota_exhausted",
        at: now(run7),
        turn: turn2,
        model,
        category: error.category,
        message: error.message
      }), yield* end4(run7, cursor, refused.value);
  }
  switch (decision._tag) {
    case "End": {
      if (decision.reductions !== void 0 && (cursor.state = withRun(cursor.state, { reductions: decision.reductions })), decision.status === "content_filtered") {
        let partial2 = error._tag === "ContentFiltered" ? error.partialText ?? "" : "";
        partial2.length > 0 && (cursor.state = answered(
          cursor.state,
          { role: "assistant", content: [text(partial2)] },
          cursor.state.budget,
          figures(cursor.state),
          partial2
        )), listening(env) && note(cursor, {
          type: "content_filtered",
          at: now(run7),
          turn: turn2,
          model,
          message: error.message,
          partial_text: partial2
        });
      }
      return yield* end4(run7, cursor, decision);
    }
    case "Reduce": {
      cursor.state = withRun(cursor.state, { reductions: decision.reductions }), retrying.overflow = decision.error;
      return;
    }
    case "Fallback": {
      if (cursor.state = withRun(
        { ...cursor.state, budget: decision.budget },
        { model_index: current.model_index + 1, retries: 0 }
      ), retrying.stepper = void 0, run7.spans.enabled && run7.spans.event(
        span2,
        EventName.fallback,
        fallback({
          from: model,
          to: decision.to,
          category: error.category,
          budget: env.budget.snapshot(decision.budget)
        })
      ), listening(env)) {
        shown.textChars > 0 && note(cursor, {
          type: "stream_restarted",
          at: now(run7),
          turn: turn2,
          model,
          attempt: attempt2,
          category: error.category,
          discarded_text_chars: shown.textChars
        });
        let spent = env.budget.snapshot(decision.budget);
        note(cursor, {
          type: "fallback",
          at: now(run7),
          turn: turn2,
          from: model,
          to: decision.to,
          category: error.category,
          session_retries_used: spent.used,
          session_retries_left: spent.remaining
        });
      }
      return;
    }
    case "Retry": {
      let before2 = cursor.state, retries2 = current.retries + 1;
      if (cursor.state = withRun(
        { ...cursor.state, budget: decision.budget },
        { retries: retries2, max_per_call: Math.max(current.max_per_call, retries2) }
      ), retrying.stepper !== void 0 && (retrying.stepper.state = scheduleState), listening(env)) {
        let at = now(run7);
        (error.midStream === !0 || shown.textChars > 0) && note(cursor, {
          type: "stream_restarted",
          at,
          turn: turn2,
          model,
          attempt: attempt2,
          category: error.category,
          discarded_text_chars: shown.textChars
        });
        let spent = env.budget.snapshot(decision.budget);
        note(cursor, {
          type: "retry_scheduled",
          at,
          turn: turn2,
          model,
          category: error.category,
          message: error.message,
          attempt: retries2,
          session_retries_used: spent.used,
          session_retries_left: spent.remaining,
          delay_ms: toMillis(decision.delay),
          retry_after_ms: error.retryAfter === void 0 ? null : toMillis(error.retryAfter),
          source: decision.source
        });
      }
      let wait = run7.spans.enabled ? retry3(run7.spans, span2, {
        error,
        model,
        attempt: retries2,
        delayMs: toMillis(decision.delay),
        source: decision.source,
        budget: env.budget.snapshot(decision.budget)
      }) : void 0, sleep5 = run7.effects.sleep(decision.delay), scheduled = commit(env, cursor), counted = env.metrics ? zipRight3(scheduled, increment2(retriesOfCategory(error.category))) : scheduled;
      yield* zipRight3(counted, sleep5).pipe(
        onInterrupt2(
          () => sync4(() => {
            cursor.state = withRun(
              { ...cursor.state, budget: before2.budget },
              { retries: current.retries, max_per_call: current.max_per_call }
            );
          })
        ),
        wait === void 0 ? identity : onExit3((exit4) => sync4(() => run7.spans.end(wait, exit4)))
      );
    }
  }
}
var shownEvent = (run7, turn2, model, attempt2, shown, shows) => {
  if (shows.type === "tool_use_started")
    return { type: "tool_use_started", at: now(run7), turn: turn2, id: shows.id, name: shows.name };
  if (shows.text.length !== 0)
    return shows.type === "text_delta" && (shown.textChars += shows.text.length), { type: shows.type, at: now(run7), turn: turn2, model, attempt: attempt2, text: shows.text };
}, observer = (run7, turn2, model, attempt2, shown) => (part, accumulated) => {
  let event2 = part.type === "text_delta" || part.type === "thinking_delta" ? shownEvent(run7, turn2, model, attempt2, shown, part) : part.type === "tool_use_start" ? shownEvent(run7, turn2, model, attempt2, shown, {
    type: "tool_use_started",
    id: uniqueIdOf(run7, turn2, accumulated, part, shown),
    name: part.name
  }) : void 0;
  return event2 === void 0 ? _void : publishNow(run7, event2);
}, responseObserver = (run7, turn2, model, attempt2, shown) => (response2) => {
  let content = unique(response2.content, run7.runNumber, turn2);
  shown.content = { of: response2, content };
  let events = [];
  for (let block of content) {
    let event2 = block.type === "text" ? shownEvent(run7, turn2, model, attempt2, shown, { type: "text_delta", text: block.text }) : block.type === "thinking" ? shownEvent(run7, turn2, model, attempt2, shown, { type: "thinking_delta", text: block.thinking }) : block.type === "tool_use" ? shownEvent(run7, turn2, model, attempt2, shown, {
      type: "tool_use_started",
      id: block.id,
      name: block.name
    }) : void 0;
    event2 !== void 0 && events.push(event2);
  }
  return events.length === 0 ? _void : deliver(run7.env, events);
}, uniqueIdOf = (run7, turn2, accumulated, part, shown) => {
  shown.ids?.of !== accumulated && (shown.ids = {
    of: accumulated,
    blocks: uniqueOf(ordered(accumulated), run7.runNumber, turn2, renamed)
  });
  let block = shown.ids.blocks.find((block2) => block2.index === part.index);
  return block?.type === "tool_use" ? block.id : part.id;
}, renamed = (block, id2) => block.type === "tool_use" ? { ...block, id: id2 } : block;
function* reduceContext(run7, cursor, turn2, error) {
  let before2 = cursor.state.contextTokens, target = targetFor(before2, error._tag === "ContextLengthExceeded" ? error : {});
  yield* commit(run7.env, cursor);
  let reduced = yield* run7.env.contextProvider.reduce(toArray3(cursor.state.context), {
    estimatedTokens: before2,
    targetTokens: target
  }), after3 = isSome2(reduced) ? messages(reduced.value) : void 0, exhausted = afterReduction2(error, before2, after3);
  if (isSome2(exhausted)) return yield* end4(run7, cursor, exhausted.value);
  if (isNone2(reduced) || after3 === void 0)
    return yield* dieMessage2("Decision.afterReduction let an unreduced context through");
  cursor.state = { ...cursor.state, context: fromArray(reduced.value), contextTokens: after3 }, run7.spans.enabled && run7.spans.event(
    cursor.turnSpan,
    EventName.contextReduced,
    contextReduced({ before: before2, after: after3, target, reductions: figures(cursor.state).reductions })
  ), listening(run7.env) && note(cursor, {
    type: "context_reduced",
    at: now(run7),
    turn: turn2,
    before: before2,
    after: after3,
    target,
    reductions: figures(cursor.state).reductions
  });
}

// node_modules/.pnpm/effect@3.22.4/node_modules/effect/dist/esm/MetricLabel.js
var make50 = make25;

// packages/kernel/src/internal/meter.ts
var none9 = [], meters = /* @__PURE__ */ new Map(), forProvider = (provider) => {
  let meter = meters.get(provider);
  return meter === void 0 && (meter = make51(provider), meters.set(provider, meter)), meter;
}, make51 = (provider) => {
  let byModel = /* @__PURE__ */ new Map(), labelsOf = (model) => {
    let labels = byModel.get(model);
    if (labels === void 0) {
      let call3 = [
        make50(Attr.operationName, Operation.chat),
        make50(Attr.providerName, provider),
        make50(Attr.requestModel, model)
      ];
      labels = {
        call: call3,
        input: [...call3, make50(Attr.tokenType, "input")],
        output: [...call3, make50(Attr.tokenType, "output")],
        failed: /* @__PURE__ */ new Map()
      }, byModel.set(model, labels);
    }
    return labels;
  };
  return {
    modelCall: (model, durationMs, result) => {
      let labels = labelsOf(model);
      if (isRight2(result)) {
        let { usage: usage4 } = result.right;
        operationDuration.unsafeUpdate(durationMs / 1e3, labels.call), tokenUsage.unsafeUpdate(usage4.input_tokens, labels.input), tokenUsage.unsafeUpdate(usage4.output_tokens, labels.output);
        return;
      }
      let category = result.left.category, failed = labels.failed.get(category);
      failed === void 0 && (failed = [...labels.call, make50(Attr.errorType, category)], labels.failed.set(category, failed)), operationDuration.unsafeUpdate(durationMs / 1e3, failed);
    },
    turn: (durationMs) => turnDuration.unsafeUpdate(durationMs / 1e3, none9)
  };
}, statusTags = /* @__PURE__ */ new Map(), runEnded2 = (status2, turns3, labels) => {
  if (turns.unsafeUpdate(turns3, labels), labels.length > 0) {
    runsWithStatus(status2).unsafeUpdate(1, labels);
    return;
  }
  let tags = statusTags.get(status2);
  tags === void 0 && (tags = [make50("status", status2)], statusTags.set(status2, tags)), runs.unsafeUpdate(1, tags);
};

// packages/kernel/src/internal/session.ts
var defaultSubscriberCapacity = 1024, make52 = (options, effects = identity) => (
  // The services are read from the context in one step, not one effect each.
  contextWith2((services) => {
    let settings = options.settings ?? defaults, budget = get5(services, RetryBudget).budgetFor(settings), provider = get5(services, ModelProvider), lock, bus, env = new SessionEnv(options, settings, budget, provider.name, services), capacity4 = options.subscriberCapacity ?? defaultSubscriberCapacity;
    return {
      id: env.id,
      settings,
      // Made when the first run is asked for, before any run starts: runs are still serialised.
      run: (input2) => (lock === void 0 && (lock = { busy: !1, waiting: void 0 }), bus === void 0 && (bus = runBus(env)), runOnce(env, lock, bus, provider, effects, input2)),
      get history() {
        return sync4(() => toArray3(get6(env.state).history));
      },
      get context() {
        return sync4(() => toArray3(get6(env.state).context));
      },
      get state() {
        return sync4(() => toPublic(get6(env.state)));
      },
      get events() {
        return unwrapScoped4(subscribe3(env, capacity4));
      },
      get subscribe() {
        return subscribe3(env, capacity4);
      },
      get retryBudget() {
        return sync4(() => budget.snapshot(get6(env.state).budget));
      }
    };
  })
), SessionEnv = class {
  id;
  model;
  models;
  policy;
  system;
  maxOutputTokens;
  request;
  toolConcurrency;
  metrics;
  toolbox;
  contextProvider;
  bus;
  state;
  listeners = { hub: void 0, subscribers: 0 };
  lazyMeter = void 0;
  lazyCallTimeouts = void 0;
  settings;
  budget;
  providerName;
  constructor(options, settings, budget, providerName, services) {
    this.settings = settings, this.budget = budget, this.providerName = providerName, this.id = options.id ?? `session-${crypto.randomUUID()}`, this.model = options.model, this.models = settings.fallback_models.length === 0 ? [options.model] : [options.model, ...settings.fallback_models.filter((model) => model !== options.model)], this.policy = options.policy, this.system = options.system, this.maxOutputTokens = options.maxOutputTokens, this.request = options.request, this.toolConcurrency = options.toolConcurrency ?? 1, this.metrics = options.metrics ?? !0, this.toolbox = get5(services, Toolbox), this.contextProvider = get5(services, ContextProvider), this.bus = get5(services, EventBus), this.state = make11(initial(options, budget));
  }
  /** Looked up at the first run: a session that never runs, or runs without metrics, adds no entry. */
  get meter() {
    return this.lazyMeter === void 0 && (this.lazyMeter = forProvider(this.providerName)), this.lazyMeter;
  }
  /** Made at the first run: an idle session holds none. */
  get callTimeouts() {
    return this.lazyCallTimeouts === void 0 && (this.lazyCallTimeouts = callTimeoutsFrom(this.settings)), this.lazyCallTimeouts;
  }
}, hubOf = (env, capacity4) => suspend3(() => {
  let { listeners } = env;
  return listeners.hub !== void 0 ? succeed7(listeners.hub) : map16(bounded5(capacity4), (hub) => listeners.hub ??= hub);
}), subscribe3 = (env, capacity4) => flatMap9(
  hubOf(env, capacity4),
  (hub) => acquireRelease2(
    sync4(() => {
      env.listeners.subscribers++;
    }),
    () => sync4(() => {
      env.listeners.subscribers--;
    })
  ).pipe(zipRight3(fromPubSub2(hub, { scoped: !0 })))
), runBus = (env) => ({
  observed: !0,
  responseObserved: env.bus.responseObserved,
  publish: (event2) => flatMap9(
    clock2,
    (clock3) => suspend3(() => {
      let stamped = [stamp(event2, clock3.unsafeCurrentTimeMillis())];
      return zipRight3(offer4(env, stamped), env.bus.deliver(stamped));
    })
  ),
  deliver: (events) => suspend3(() => zipRight3(offer4(env, events), env.bus.deliver(events))),
  modelResponded: env.bus.modelResponded
}), enter = (lock, restore) => {
  if (!lock.busy)
    return lock.busy = !0, _void;
  let released = async2((resume2) => {
    if (!lock.busy) return resume2(_void);
    lock.waiting === void 0 && (lock.waiting = /* @__PURE__ */ new Set());
    let waiting = lock.waiting, wake = () => {
      waiting.delete(wake), resume2(_void);
    };
    return waiting.add(wake), sync4(() => {
      waiting.delete(wake);
    });
  });
  return flatMap9(restore(released), () => enter(lock, restore));
}, leave = (lock) => {
  if (lock.busy = !1, lock.waiting !== void 0) for (let wake of lock.waiting) wake();
}, runOnce = (env, lock, bus, provider, wrap, input2) => uninterruptibleMask3((restore) => {
  let entered = enter(lock, restore);
  return entered === _void ? locked(env, lock, bus, provider, wrap, input2, restore) : flatMap9(entered, () => locked(env, lock, bus, provider, wrap, input2, restore));
}), locked = (env, lock, bus, provider, wrap, input2, restore) => {
  let outer, started, run7 = flatMap9(
    restore(runtime3()),
    (caller) => withFiberRuntime2((fiber) => {
      let clock3 = get5(fiber.currentDefaultServices, Clock), message2 = typeof input2 == "string" ? userText(input2) : input2, state = startRun(get6(env.state), env.id, clock3.unsafeCurrentTimeMillis(), message2), runId = figures(state).run_id, spans = spansOf(fiber), runSpan = spans.enabled ? run4(spans, { session: env.id, runId, provider: provider.name, model: env.model }) : void 0, cursor = {
        state,
        events: noEvents,
        turnSpan: void 0,
        tools: void 0,
        running: void 0
      }, context5 = fiber.getFiberRef(currentContext2);
      outer = context5;
      let map24 = new Map(context5.unsafeMap);
      runSpan !== void 0 && map24.set(ParentSpan.key, runSpan), map24.set(EventBus.key, bus), map24.set(CurrentCallTimeouts.key, env.callTimeouts);
      let services = unsafeMake(map24), runtime4 = make42({
        context: services,
        fiberRefs: caller.fiberRefs,
        runtimeFlags: caller.runtimeFlags
      });
      return flatMap9(set6(currentContext2, services), () => {
        let live = {
          env,
          runId,
          runNumber: state.runs,
          clock: clock3,
          spans,
          runSpan,
          effects: wrap(
            make49({
              provider,
              toolbox: env.toolbox,
              // The settings' own attempt timeout, made once a session with the other call timeouts.
              attemptTimeout: env.callTimeouts.attempt,
              runtime: runtime4,
              spans
            })
          ),
          quota: get5(services, RetryQuota)
        };
        started = { live, cursor }, listening(env) && note(cursor, {
          type: "run_started",
          at: clock3.unsafeCurrentTimeMillis(),
          run_id: runId,
          model: env.model,
          input: typeof input2 == "string" ? input2 : textOf(message2)
        });
        let ended = catchAllCause2(restore(turns2(live, cursor)), (cause2) => {
          let ending = endingOf(env, cause2);
          return ending === void 0 ? interrupt6 : finish(live, cursor, ending);
        }), delivered = commit(env, cursor);
        return delivered === _void ? ended : flatMap9(delivered, () => ended);
      });
    })
  );
  return matchCauseEffect3(run7, {
    onFailure: (cause2) => {
      let released = release(lock, outer, void 0), closed = started !== void 0 && isInterrupted2(cause2) ? ensuring2(interrupted2(started), released) : released;
      return matchCauseEffect3(closed, {
        onFailure: (closing) => failCause6(sequential4(cause2, closing)),
        onSuccess: () => failCause6(cause2)
      });
    },
    onSuccess: (outcome) => release(lock, outer, outcome)
  });
}, release = (lock, outer, value2) => outer === void 0 ? sync4(() => (leave(lock), value2)) : modify6(currentContext2, () => (leave(lock), [value2, outer])), interrupted2 = (started) => flatMap9(
  started.live.env.toolbox.onRunInterrupted ?? _void,
  () => finish(started.live, started.cursor, End2({ status: "interrupted" }))
), endingOf = (env, cause2) => {
  if (isFailType2(cause2)) return cause2.error.ending;
  let ended = failureOption2(cause2);
  if (isSome2(ended)) return ended.value.ending;
  if (!isInterruptedOnly2(cause2))
    return End2({
      status: "failed",
      error: new Unknown2({
        provider: "agent-kernel",
        model: env.model,
        message: `the run failed unexpectedly: ${describeDefect(squash(cause2))}`
      })
    });
}, finish = (run7, cursor, ending) => {
  let { env } = run7, state = answerPending(cursor.state, pendingReason(ending.status), cursor.running?.results), figures2 = figures(state), wall = run7.clock.unsafeCurrentTimeMillis() - figures2.started_at, retries2 = { max_per_call: figures2.max_per_call, session_total: env.budget.snapshot(state.budget).used }, history, outcome = {
    run_id: figures2.run_id,
    status: ending.status,
    ...ending.error !== void 0 ? { error: ending.error } : {},
    turns: figures2.turns,
    retries: retries2,
    usage: figures2.usage,
    cost_usd: figures2.cost_usd,
    wall_ms: wall,
    context_reductions: figures2.reductions,
    final_text: figures2.final_text,
    get history() {
      return history === void 0 && (history = toArray3(state.history)), history;
    }
  };
  cursor.state = state, listening(env) && note(cursor, {
    type: "run_ended",
    at: run7.clock.unsafeCurrentTimeMillis(),
    run_id: figures2.run_id,
    status: ending.status,
    turns: figures2.turns,
    retries: retries2,
    usage: figures2.usage,
    cost_usd: figures2.cost_usd,
    wall_ms: wall,
    error: ending.error === void 0 ? null : summarize(ending.error),
    final_text: figures2.final_text
  });
  let delivered = commit(env, cursor), ended = withFiberRuntime2((fiber) => {
    env.metrics && runEnded2(ending.status, figures2.turns, fiber.getFiberRef(currentMetricLabels2));
    let exit4 = ending.status === "interrupted" ? interrupt3(none4) : succeed3(outcome);
    return run7.spans.end(cursor.turnSpan, exit4), run7.spans.end(
      run7.runSpan,
      exit4,
      run7.runSpan === void 0 ? void 0 : runEnded(ending.status, ending.error)
    ), succeed7(outcome);
  });
  return delivered === _void ? ended : flatMap9(delivered, () => ended);
};

// packages/kernel/src/Session.ts
var RunState = Struct({
  run_id: String$,
  /** Clock time the run started at, in milliseconds. */
  started_at: Number$,
  /** Turns started (retries never advance it). */
  turns: Number$,
  /** The current model call: its attempt in the turn, from 1 (it carries on across a fallback). */
  attempt: Number$,
  /** Which model of the chain the call is on (0: the session's model). */
  model_index: Number$,
  /** Retries of the call on this model: what `max_retries` caps. */
  retries: Number$,
  /** The most retries any one model of any call used. */
  max_per_call: Number$,
  usage: Usage,
  /** `null` while no call of the run had a price. */
  cost_usd: NullOr(Number$),
  /** Context overflows met. */
  reductions: Number$,
  /** The model's last text. */
  final_text: String$,
  /** Models already warned about for having no price. */
  unpriced: Array$(String$)
}), State2 = Struct({
  /** The full history, never reduced. */
  history: History,
  /** The working context requests are built from; reduction shrinks it. */
  context: History,
  /** The session budget's state. */
  budget: State,
  /** Runs started, which numbers the next run's id. */
  runs: Number$,
  /** The current run, or the last one; `null` before the first. */
  run: NullOr(RunState)
}), SubscriberCapacity = Int.pipe(
  between3(1, 1048576),
  brand("@agent-kernel/kernel/Session/SubscriberCapacity")
), defaultSubscriberCapacity2 = SubscriberCapacity.make(defaultSubscriberCapacity), Session = class extends Tag2("@agent-kernel/kernel/Session")() {
}, make53 = (options) => make52(options, options.effects), layer5 = (options) => effect(Session, make53(options));

// bench/src/Script.ts
var toolName = "echo", toolDescription = "Echoes its input.", inputJsonSchema = {
  type: "object",
  properties: { i: { type: "number" } },
  required: ["i"],
  additionalProperties: !1
}, input = (call3) => ({ i: call3 }), callId = (call3) => `call_${call3}`, echo = (value2) => JSON.stringify(value2), finalText = "done", prompt = "go", wantsTool = (call3, steps) => call3 < steps, check2 = (loop2, steps, counted) => {
  if (counted.model !== steps + 1 || counted.tool !== steps)
    throw new Error(
      `${loop2}: a ${steps}-step run made ${counted.model} model calls and ${counted.tool} tool calls (expected ${steps + 1} and ${steps})`
    );
};

// bench/src/KernelLoop.ts
var definitions = succeed7([
  { name: toolName, description: toolDescription, input_schema: inputJsonSchema }
]), usage3 = { input_tokens: 1, output_tokens: 1 }, response = (call3, steps) => wantsTool(call3, steps) ? {
  model: "bench",
  content: [Content_exports.toolUse(callId(call3), toolName, input(call3))],
  stop_reason: "tool_use",
  usage: usage3
} : { model: "bench", content: [Content_exports.text(finalText)], stop_reason: "end_turn", usage: usage3 }, echo2 = (call3) => {
  let input2 = call3.input;
  return typeof input2 == "object" && input2 !== null && "i" in input2 && typeof input2.i == "number" ? echo({ i: input2.i }) : "bad input";
}, makeSession = (steps, options, counted) => gen2(function* () {
  let latency = millis(options.latencyMs ?? 0), answer = sync4(() => response(counted.model++, steps)), provider = ModelProvider_exports.fromGenerate(
    "bench",
    isZero(latency) ? () => answer : () => zipRight3(sleep4(latency), answer)
  ), toolbox = Toolbox_exports.Toolbox.of({
    definitions,
    invoke: (call3) => sync4(() => (counted.tool++, Content_exports.toolResult(call3.id, echo2(call3))))
  }), bus = yield* EventBus_exports.make(
    options.observed ? [{ onEvent: () => sync4(() => {
      counted.events++;
    }) }] : []
  );
  return yield* Session_exports.make({ model: "bench", settings: { ...Settings_exports.defaults, max_turns: steps + 1 } }).pipe(
    provideService2(ModelProvider_exports.ModelProvider, provider),
    provideService2(Toolbox_exports.Toolbox, toolbox),
    provideService2(EventBus_exports.EventBus, bus)
  );
});
var runEffect = (steps, options) => gen2(function* () {
  let counted = { model: 0, tool: 0, events: 0 }, session = yield* makeSession(steps, options, counted), outcome = yield* session.run(prompt);
  return outcome.status !== "completed" ? yield* dieMessage2(`agent-kernel: the run ended ${outcome.status}`) : options.observed && counted.events === 0 ? yield* dieMessage2("agent-kernel: the observer saw nothing") : (yield* sync4(() => check2("agent-kernel", steps, counted)), session);
}), run5 = (steps, options) => runPromise(runEffect(steps, options));

// bench/baseline/entry.ts
var run6 = (steps, options) => run5(steps, options), runMany = (sessions, steps, options) => runPromise(
  forEach7(
    Array.from({ length: sessions }, (_, index) => index),
    () => runEffect(steps, options),
    { concurrency: "unbounded", discard: !0 }
  )
);
export {
  run6 as run,
  runMany
};
