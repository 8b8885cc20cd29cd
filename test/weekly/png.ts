/** The eight bytes every PNG file starts with. */
export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Width and height from a PNG's IHDR chunk (which must come first), or throws when the bytes
 * are not a PNG.
 */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(bytes);
  if (b.length < 24 || !b.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error("not a PNG: bad signature");
  if (b.subarray(12, 16).toString("latin1") !== "IHDR")
    throw new Error("not a PNG: IHDR is not the first chunk");
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}
