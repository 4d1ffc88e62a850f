import { DecodeError } from "../../core/errors/supernode-error.js";

/** Bytes per blob: 4096 field elements × 32 bytes. */
export const BLOB_SIZE = 131072;
/** Maximum payload of one blob in the OP blob encoding (version 0). */
export const MAX_BLOB_DATA_SIZE = (4 * 31 + 3) * 1024 - 4; // 130044
export const BLOB_ENCODING_VERSION = 0;
const ROUNDS = 1024;

/**
 * Encodes `data` (≤ 130044 bytes) into a blob with the OP blob encoding version 0: field element 0
 * carries version and 3-byte length, then rounds of 4 field elements carry 127 data bytes each
 * (31 bytes per element plus 6 bits in each element's high byte).
 */
export function encodeBlob(data: Uint8Array): Uint8Array {
  if (data.length > MAX_BLOB_DATA_SIZE)
    throw new DecodeError(`blob data too large: ${data.length} > ${MAX_BLOB_DATA_SIZE}`);
  const blob = new Uint8Array(BLOB_SIZE);
  let r = 0; // read offset into data
  let w = 0; // write offset into blob (always at a field element start)
  const read1 = (): number => (r < data.length ? (data[r++] as number) : 0);
  const write31 = (): void => {
    // copy up to 31 data bytes into blob[w+1 .. w+32)
    const n = Math.min(31, data.length - r);
    if (n > 0) blob.set(data.subarray(r, r + n), w + 1);
    r += 31;
  };
  for (let round = 0; round < ROUNDS && r < data.length; round++) {
    if (round === 0) {
      blob[1] = BLOB_ENCODING_VERSION;
      blob[2] = (data.length >> 16) & 0xff;
      blob[3] = (data.length >> 8) & 0xff;
      blob[4] = data.length & 0xff;
      const n = Math.min(27, data.length);
      blob.set(data.subarray(0, n), 5);
      r = 27;
    } else {
      write31();
    }
    const x = read1();
    blob[w] = x & 0x3f;
    w += 32;
    write31();
    const y = read1();
    blob[w] = (y & 0x0f) | ((x & 0xc0) >> 2);
    w += 32;
    write31();
    const z = read1();
    blob[w] = z & 0x3f;
    w += 32;
    write31();
    blob[w] = ((z & 0xc0) >> 2) | ((y & 0xf0) >> 4);
    w += 32;
  }
  if (r < data.length) throw new DecodeError("blob data did not fit"); // unreachable given the size check
  return blob;
}

/**
 * Decodes a version-0 OP blob back to its data. Throws DecodeError on a wrong size, wrong version,
 * length above the maximum, a field element with either of its top two bits set, or any non-zero byte
 * beyond the encoded data.
 */
export function decodeBlob(blob: Uint8Array): Uint8Array {
  if (blob.length !== BLOB_SIZE) throw new DecodeError(`blob must be ${BLOB_SIZE} bytes, got ${blob.length}`);
  if (blob[1] !== BLOB_ENCODING_VERSION) throw new DecodeError(`unsupported blob encoding version ${blob[1]}`);
  const len = ((blob[2] as number) << 16) | ((blob[3] as number) << 8) | (blob[4] as number);
  if (len > MAX_BLOB_DATA_SIZE) throw new DecodeError(`blob data length ${len} exceeds ${MAX_BLOB_DATA_SIZE}`);
  const out = new Uint8Array(MAX_BLOB_DATA_SIZE + 4); // slack for the last round's writes
  out.set(blob.subarray(5, 32), 0);
  let opos = 28;
  let ipos = 32;
  const fe = (): number => {
    const b = blob[ipos] as number;
    if ((b & 0xc0) !== 0) throw new DecodeError(`blob field element ${ipos / 32} has its top bits set`);
    out.set(blob.subarray(ipos + 1, ipos + 32), opos);
    opos += 32;
    ipos += 32;
    return b;
  };
  const reassemble = (a: number, b: number, c: number, d: number): void => {
    opos--; // each round yields 127 bytes, not 128
    const x = (a & 0x3f) | ((b & 0x30) << 2);
    const y = (b & 0x0f) | ((d & 0x0f) << 4);
    const z = (c & 0x3f) | ((d & 0x30) << 2);
    out[opos - 32] = z;
    out[opos - 64] = y;
    out[opos - 96] = x;
  };
  const a0 = blob[0] as number;
  if ((a0 & 0xc0) !== 0) throw new DecodeError("blob field element 0 has its top bits set");
  const b0 = fe();
  const c0 = fe();
  const d0 = fe();
  reassemble(a0, b0, c0, d0);
  for (let round = 1; round < ROUNDS && opos < len; round++) {
    const a = fe();
    const b = fe();
    const c = fe();
    const d = fe();
    reassemble(a, b, c, d);
  }
  for (let i = len; i < opos && i < out.length; i++)
    if (out[i] !== 0) throw new DecodeError(`blob has extraneous data at output byte ${i}`);
  for (let i = ipos; i < BLOB_SIZE; i++)
    if (blob[i] !== 0) throw new DecodeError(`blob has extraneous data at blob byte ${i}`);
  return out.slice(0, len);
}
