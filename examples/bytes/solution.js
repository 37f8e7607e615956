// Bytes and nested values, nothing but the function: bytes are a
// Uint8Array, a record (Meta, Transformed) an object. JavaScript has one
// number type, so half goes out as an integer when it is whole; the
// declaration makes it a float again in the evaluator.
function transform(blob, meta) {
  return {
    reversed: Uint8Array.from(blob).reverse(),
    complement: blob.map((b) => 255 - b),
    meta,
    stats: { raw: Uint8Array.of(0x00, 0xff), size: blob.length, half: blob.length / 2 },
  };
}
