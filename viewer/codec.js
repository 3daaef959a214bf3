// strobe's pages, what both the viewer (viewer.html) and the compare page of
// strobe diff (compare.html) read their data with: unsigned numbers in
// base64 digits, 5 bits a digit, least significant group first, 32 in a
// digit meaning "more follows" (exact up to 2^53), zigzag-signed numbers,
// and how amounts are written. window.strobeCodec.
"use strict";
(function () {
  var ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  var DIGIT = new Int8Array(128).fill(-1);
  for (var a = 0; a < 64; a++) DIGIT[ALPHABET.charCodeAt(a)] = a;

  // Reads the numbers of `s` one by one; `what` names the data in errors.
  function Reader(s, what) { this.s = s; this.i = 0; this.what = what || "profile data"; }
  Reader.prototype.next = function () {
    var s = this.s, i = this.i, v = 0, mul = 1, d;
    do {
      d = DIGIT[s.charCodeAt(i++)];
      if (!(d >= 0)) throw new Error("malformed " + this.what + " at offset " + (i - 1));
      v += (d & 31) * mul;
      mul *= 32;
    } while (d & 32);
    this.i = i;
    return v;
  };
  function unzigzag(v) { return v % 2 === 1 ? -(v + 1) / 2 : v / 2; }
  function grouped(x) { return String(x).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function duration(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(2) + " s";
    if (ns >= 1e6) return (ns / 1e6).toFixed(1) + " ms";
    if (ns >= 1e3) return (ns / 1e3).toFixed(1) + " µs";
    return Math.round(ns) + " ns";
  }
  window.strobeCodec = { Reader: Reader, unzigzag: unzigzag, grouped: grouped, duration: duration };
})();
