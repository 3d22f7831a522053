#!/usr/bin/env python3
"""A HEIC stored as iPhones store photos: a grid of HEVC tiles (512×512 on iPhones) composed by a `grid` item, the
photo cropped from the tiles' canvas. Debian's heif-enc 1.15 writes one HEVC image (wrapped in a 1×1 grid when
its size needs a crop) and no encoder here writes tiled HEIFs, so this script encodes each tile with heif-enc
and writes the container itself (ISO/IEC 23008-12: ftyp; meta with hdlr, pitm, iloc, iinf, iprp, iref `dimg`,
idat holding the grid descriptor; mdat with the tiles' bitstreams).

    Tools/.venv/bin/python Tools/make_heic_grid.py PHOTO -o OUT.heic [--tile 512] [--quality 90]

Used by Tools/make_format_fixtures.py for heic-grid.heic (upright.png in 2×2 tiles of 32×32), and by hand for
timing a 12 MP grid against one HEVC image (PERF.md).
"""

import argparse
import os
import struct
import subprocess
import tempfile

from PIL import Image


def children(b, start, end):
    """(type, payload start, box end) of each box in b[start:end]."""
    i = start
    while i + 8 <= end:
        size, kind = struct.unpack(">I4s", b[i:i + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", b[i + 8:i + 16])[0]
            header = 16
        elif size == 0:
            size = end - i
        yield kind.decode("latin1"), i + header, i + size
        i += size


def find(b, start, end, kind):
    return next(((s, e) for k, s, e in children(b, start, end) if k == kind), None)


def read_tile(path):
    """A heif-enc file's HEVC item: its hvcC box (whole), its bitstream, and its nclx `colr` box if any."""
    b = open(path, "rb").read()
    ms, me = find(b, 0, len(b), "meta")
    ms += 4  # FullBox
    items = {}
    s, e = find(b, ms, me, "iinf")
    version = b[s]
    count_size = 2 if version == 0 else 4
    for kind, cs, ce in children(b, s + 4 + count_size, e):
        if kind == "infe" and b[cs] >= 2:
            item = struct.unpack(">H", b[cs + 4:cs + 6])[0]
            items[item] = b[cs + 8:cs + 12].decode("latin1")
    hevc = next(i for i, t in items.items() if t == "hvc1")
    s, e = find(b, ms, me, "iloc")
    version = b[s]
    p = s + 4
    offset_size, length_size = b[p] >> 4, b[p] & 15
    base_size, index_size = b[p + 1] >> 4, (b[p + 1] & 15 if version in (1, 2) else 0)
    p += 2
    count = struct.unpack(">H" if version < 2 else ">I", b[p:p + (2 if version < 2 else 4)])[0]
    p += 2 if version < 2 else 4
    read = lambda n, at: int.from_bytes(b[at:at + n], "big") if n else 0
    data = None
    for _ in range(count):
        item = read(2 if version < 2 else 4, p)
        p += 2 if version < 2 else 4
        method = 0
        if version in (1, 2):
            method = read(2, p) & 15
            p += 2
        p += 2  # data reference index
        base = read(base_size, p)
        p += base_size
        extents = read(2, p)
        p += 2
        chunks = []
        for _ in range(extents):
            p += index_size
            offset = read(offset_size, p)
            p += offset_size
            length = read(length_size, p)
            p += length_size
            chunks.append((base + offset, length))
        if item == hevc:
            assert method == 0, f"{path}: tile data not in the file's mdat"
            data = b"".join(b[o:o + n] for o, n in chunks)
    s, e = find(b, ms, me, "iprp")
    cs, ce = find(b, s, e, "ipco")
    properties = [(k, b[ks - 8:ke]) for k, ks, ke in children(b, cs, ce)]
    ps, pe = find(b, s, e, "ipma")
    flags = b[ps + 3]
    entries = struct.unpack(">I", b[ps + 4:ps + 8])[0]
    p = ps + 8
    hvcc = colr = None
    for _ in range(entries):
        item = read(2 if b[ps] < 1 else 4, p)
        p += 2 if b[ps] < 1 else 4
        n = b[p]
        p += 1
        for _ in range(n):
            index = (read(2, p) & 0x7FFF) if flags & 1 else (b[p] & 0x7F)
            p += 2 if flags & 1 else 1
            kind, box = properties[index - 1]
            if kind == "hvcC" and item == hevc:
                hvcc = box
            if kind == "colr" and box[8:12] == b"nclx":
                colr = box
    assert hvcc and data, f"{path}: no HEVC item"
    return hvcc, data, colr


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def write_grid(tiles, rows, columns, tile_size, size, out):
    """tiles: (hvcC box, bitstream, colr box or None) row by row; size: the photo's (width, height)."""
    n = len(tiles)
    grid = n + 1
    hvccs = []
    for hvcc, _, _ in tiles:
        if hvcc not in hvccs:
            hvccs.append(hvcc)
    colr = tiles[0][2]
    ipco = hvccs + [full("ispe", 0, 0, struct.pack(">II", *tile_size)), full("ispe", 0, 0, struct.pack(">II", *size))]
    tile_ispe, grid_ispe = len(hvccs) + 1, len(hvccs) + 2
    if colr:
        ipco.append(colr)
    ipma = struct.pack(">I", n + 1)
    for i, (hvcc, _, _) in enumerate(tiles):
        ipma += struct.pack(">HBBB", i + 1, 2, 0x80 | (hvccs.index(hvcc) + 1), tile_ispe)
    grid_props = [grid_ispe] + ([0x80 | len(ipco)] if colr else [])
    ipma += struct.pack(">HB", grid, len(grid_props)) + bytes(grid_props)
    iprp = box("iprp", box("ipco", b"".join(ipco)) + full("ipma", 0, 0, ipma))
    iinf = full("iinf", 0, 0, struct.pack(">H", n + 1) + b"".join(
        full("infe", 2, 1, struct.pack(">HH", i + 1, 0) + b"hvc1\0") for i in range(n))
        + full("infe", 2, 0, struct.pack(">HH", grid, 0) + b"grid\0"))
    iref = full("iref", 0, 0, box("dimg", struct.pack(">HH", grid, n) + b"".join(struct.pack(">H", i + 1) for i in range(n))))
    descriptor = struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, *size)
    hdlr = full("hdlr", 0, 0, b"\0\0\0\0pict" + b"\0" * 12 + b"\0")
    pitm = full("pitm", 0, 0, struct.pack(">H", grid))
    ftyp = box("ftyp", b"heic" + b"\0\0\0\0" + b"mif1heic")

    def meta(first_offset):
        iloc = struct.pack(">BBH", 0x44, 0x00, n + 1)
        offset = first_offset
        for i, (_, data, _) in enumerate(tiles):
            iloc += struct.pack(">HHHHII", i + 1, 0, 0, 1, offset, len(data))
            offset += len(data)
        iloc += struct.pack(">HHHHII", grid, 1, 0, 1, 0, len(descriptor))
        return full("meta", 0, 0, hdlr + pitm + full("iloc", 1, 0, iloc) + iinf + iprp + iref + box("idat", descriptor))

    head = len(ftyp) + len(meta(0)) + 8  # the offsets' values do not change the meta box's size
    payload = b"".join(data for _, data, _ in tiles)
    with open(out, "wb") as f:
        f.write(ftyp + meta(head) + box("mdat", payload))


def make_grid(photo, out, tile=512, quality=90):
    image = Image.open(photo).convert("RGB")
    width, height = image.size
    columns, rows = -(-width // tile), -(-height // tile)
    # The canvas the tiles cover, the photo's last column and row repeated into it (as encoders pad).
    canvas = Image.new("RGB", (columns * tile, rows * tile))
    canvas.paste(image, (0, 0))
    if columns * tile > width:
        canvas.paste(image.crop((width - 1, 0, width, height)).resize((columns * tile - width, height)), (width, 0))
    if rows * tile > height:
        canvas.paste(canvas.crop((0, height - 1, columns * tile, height)).resize((columns * tile, rows * tile - height)), (0, height))
    tiles = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rows):
            for c in range(columns):
                png, heic = os.path.join(tmp, "tile.png"), os.path.join(tmp, "tile.heic")
                canvas.crop((c * tile, r * tile, (c + 1) * tile, (r + 1) * tile)).save(png)
                subprocess.run(["heif-enc", "-q", str(quality), "-o", heic, png], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                tiles.append(read_tile(heic))
    write_grid(tiles, rows, columns, (tile, tile), (width, height), out)
    return rows, columns


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("photo")
    parser.add_argument("-o", "--out", required=True)
    parser.add_argument("--tile", type=int, default=512, help="tile side in pixels (512, as iPhones)")
    parser.add_argument("--quality", type=int, default=90)
    args = parser.parse_args()
    rows, columns = make_grid(args.photo, args.out, args.tile, args.quality)
    print(f"{args.out}: {rows}×{columns} tiles of {args.tile} px")


if __name__ == "__main__":
    main()
