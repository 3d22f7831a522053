#!/usr/bin/env python3
"""The decode fixtures for image formats beyond PNG and JPEG, made with Debian's own encoders from the committed
decode fixtures (re-runnable; run after Tools/make_fixtures.py has written Tests/Fixtures/decode/upright.png):

    apt-get install webp libheif-examples colord-data libtiff-tools imagemagick
    Tools/.venv/bin/pip install pillow-heif   # HEIC's reference decoder, and the writer of HEIF turns
    Tools/.venv/bin/python Tools/make_format_fixtures.py [--only bmp,gif|heic-grid]

(`--only` writes only those fixtures, leaving the lossy encoders' other files as they are.)

Writes into Tests/Fixtures/decode/:
- webp-lossless.webp (must decode to upright.png exactly), webp-lossy.webp and webp-lossy-pillow.png (Pillow's
  decode of it, which swiftseg must match within the decoders' rounding);
- webp-alpha.webp (lossless with alpha, exact colours under transparent pixels: rgba.png exactly),
  webp-alpha-lossy.webp and webp-alpha-lossy-pillow.png;
- webp-animated.webp: two lossless frames, upright.png then it upside down (the first frame is what is read);
- webp-orientation-N.webp for N = 1…8: orientation-N.png's stored pixels, lossless, with an EXIF chunk holding
  orientation N (for 3 and 6 after an `Exif\\0\\0` prefix, as some writers store it); upright.png once turned;
- heic.heic and heic-alpha.heic (heif-enc, quality 90, from upright.png and rgba.png) with heic-pillow.png and
  heic-alpha-pillow.png, pillow-heif's decodes (its own libheif, a newer one: the colour conversion may round
  differently); avif.avif (heif-enc's AV1, libaom, 4:4:4) with avif-pillow.png (Pillow's own AVIF decoder,
  libavif), and avif-420.avif (4:2:0, as most AVIFs) with avif-420-pillow.png: libavif upsamples the chroma
  bilinearly, Debian's libheif 1.15 by repeating it, so near edges the two differ by more than rounding;
  heic-10bit.heic (heif-enc -b 10 from rgb16.png), which must come out as 8-bit upright.png within rounding;
- profile-adobe-rgb.{jpg,png,webp,heic}: upright.png carrying Adobe RGB (1998)'s ICC profile (colord-data's, CC0;
  adobe-rgb.icc is a copy) in JPEG APP2, PNG iCCP, WebP ICCP and HEIF `colr` (Pillow, cwebp, heif-enc);
- tiff-rgb.tif, tiff-lzw.tif (upright.png exactly), tiff-rgba.tif (rgba.png, deflate; libtiff hands alpha
  premultiplied, so colours under low alpha come back within rounding), tiff-gray.tif (gray8.png), tiff-16bit.tif
  (rgb16.png through ImageMagick: upright.png within 1), tiff-pages.tif (two pages: the first is upright.png),
  profile-adobe-rgb.tif, and tiff-orientation-N.tif (orientation-N.png's pixels, Orientation tag N by tiffset);
- heic-nclx-p3.heic and heic-nclx-pq.heic: upright.png with an `nclx` colour description instead of a profile
  (Display P3; BT.2020 primaries with PQ's curve);
- heic-orientation-N.heic for N = 1…8: orientation-N.png's stored pixels with HEIF's own turn (`irot`, `imir`)
  for orientation N, as iPhones store photos (written by pillow-heif, which turns an EXIF orientation into
  those boxes and sets the EXIF tag to 1; Debian's heif-enc 1.15 keeps the EXIF tag and writes no turn);
- BMP: bmp-rgb.bmp (Pillow, 24-bit) and bmp-topdown.bmp (the same rows stored top-down, a negative height), both
  upright.png exactly; bmp-rgbx.bmp (Pillow's 32-bit from rgba.png, whose fourth byte readers ignore: rgba.png's
  colours); bmp-gray.bmp (Pillow's 8-bit gray palette: gray8.png); bmp-palette.bmp (8-bit), bmp-1bit.bmp,
  bmp-4bit.bmp, bmp-rle8.bmp (ImageMagick's RLE8), bmp-565.bmp and bmp-555.bmp (16-bit bit fields) and
  bmp-alpha.bmp (ImageMagick's 32-bit V5 with an alpha mask), each with <name>-pillow.png, Pillow's decode;
  profile-adobe-rgb.bmp (ImageMagick's V5 with the profile embedded);
- GIF: gif.gif (Pillow, interlaced, as it writes by default) and gif-plain.gif (not interlaced), both gif-pillow.png;
  gif-transparent.gif (palette-trns.png, a transparent index: gif-transparent-pillow.png, RGBA); gif-animated.gif
  (two frames: the first is gif-pillow.png); gif-offset.gif (ImageMagick: a 60×40 frame at (10, 5) on an 80×60
  screen: gif-offset-pillow.png); profile-adobe-rgb.gif (ImageMagick's ICCRGBG1012 extension);
- heic-grid.heic: upright.png scaled 2× (nearest, 120×80) as iPhones store photos, a grid of 2×2 HEVC tiles of 64 px
  cropped to the photo (Tools/make_heic_grid.py), and heic-grid-pillow.png, pillow-heif's decode of it.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "Fixtures", "decode")
ADOBE_RGB = "/usr/share/color/icc/colord/AdobeRGB1998.icc"


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pixels(path, mode=None):
    image = Image.open(path)
    image.load()
    return np.array(image.convert(mode) if mode else image)


def bmp_and_gif(out):
    upright, rgba, gray8 = out("upright.png"), out("rgba.png"), out("gray8.png")
    with_pillow = lambda name, mode: Image.open(out(name)).convert(mode).save(out(name.rsplit(".", 1)[0] + "-pillow.png"))

    Image.open(upright).convert("RGB").save(out("bmp-rgb.bmp"))
    assert np.array_equal(pixels(out("bmp-rgb.bmp")), pixels(upright, "RGB"))
    data = bytearray(open(out("bmp-rgb.bmp"), "rb").read())
    width, height = int.from_bytes(data[18:22], "little"), int.from_bytes(data[22:26], "little")
    start, stride = int.from_bytes(data[10:14], "little"), (width * 3 + 3) // 4 * 4
    rows = [data[start + r * stride:start + (r + 1) * stride] for r in range(height)]
    data[22:26] = (-height).to_bytes(4, "little", signed=True)
    data[start:start + height * stride] = b"".join(reversed(rows))
    open(out("bmp-topdown.bmp"), "wb").write(bytes(data))
    assert np.array_equal(pixels(out("bmp-topdown.bmp")), pixels(upright, "RGB"))
    Image.open(rgba).save(out("bmp-rgbx.bmp"))
    assert np.array_equal(pixels(out("bmp-rgbx.bmp"), "RGB"), pixels(rgba, "RGB"))
    Image.open(gray8).convert("L").save(out("bmp-gray.bmp"))
    assert Image.open(out("bmp-gray.bmp")).mode == "L"
    assert np.array_equal(pixels(out("bmp-gray.bmp")), pixels(gray8, "L"))
    Image.open(out("palette.png")).save(out("bmp-palette.bmp"))
    Image.open(gray8).convert("1").save(out("bmp-1bit.bmp"))
    run("convert", upright, "-colors", "16", "-type", "Palette", "BMP3:" + out("bmp-4bit.bmp"))
    run("convert", upright, "-colors", "200", "-type", "Palette", "-compress", "RLE", "BMP3:" + out("bmp-rle8.bmp"))
    run("convert", upright, "-define", "bmp:subtype=RGB565", out("bmp-565.bmp"))
    run("convert", upright, "-define", "bmp:subtype=RGB555", out("bmp-555.bmp"))
    run("convert", rgba, out("bmp-alpha.bmp"))
    for name in ("bmp-palette.bmp", "bmp-1bit.bmp", "bmp-4bit.bmp", "bmp-rle8.bmp", "bmp-565.bmp", "bmp-555.bmp"):
        with_pillow(name, "RGB")
    assert Image.open(out("bmp-4bit.bmp")).tile[0].args[0] == "P;4"
    assert Image.open(out("bmp-rle8.bmp")).tile[0].codec_name == "bmp_rle"
    assert Image.open(out("bmp-alpha.bmp")).mode == "RGBA"
    with_pillow("bmp-alpha.bmp", "RGBA")
    run("convert", out("profile-adobe-rgb.png"), out("profile-adobe-rgb.bmp"))

    quantized = Image.open(upright).convert("RGB").quantize(64)
    quantized.save(out("gif.gif"))
    quantized.save(out("gif-plain.gif"), interlace=False)
    with_pillow("gif.gif", "RGB")
    assert np.array_equal(pixels(out("gif-plain.gif"), "RGB"), pixels(out("gif-pillow.png")))
    Image.open(out("palette-trns.png")).save(out("gif-transparent.gif"))
    with_pillow("gif-transparent.gif", "RGBA")
    quantized.save(out("gif-animated.gif"), save_all=True, append_images=[quantized.transpose(Image.ROTATE_180)], duration=100)
    assert Image.open(out("gif-animated.gif")).n_frames == 2
    assert np.array_equal(pixels(out("gif-animated.gif"), "RGB"), pixels(out("gif-pillow.png")))
    run("convert", upright, "-colors", "64", "-page", "80x60+10+5", out("gif-offset.gif"))
    with_pillow("gif-offset.gif", "RGB")
    run("convert", out("profile-adobe-rgb.png"), "-colors", "64", out("profile-adobe-rgb.gif"))


def heic_grid(out):
    sys.path.insert(0, HERE)
    from make_heic_grid import make_grid
    with tempfile.TemporaryDirectory() as tmp:
        doubled = os.path.join(tmp, "doubled.png")
        Image.open(out("upright.png")).convert("RGB").resize((120, 80), Image.NEAREST).save(doubled)
        assert make_grid(doubled, out("heic-grid.heic"), tile=64) == (2, 2)
    Image.open(out("heic-grid.heic")).convert("RGB").save(out("heic-grid-pillow.png"))


def main():
    if sys.argv[1:3] == ["--only", "bmp,gif"]:
        bmp_and_gif(lambda name: os.path.join(OUT, name))
        print("make_format_fixtures: wrote", ", ".join(sorted(n for n in os.listdir(OUT) if n.endswith((".bmp", ".gif")))))
        return
    if sys.argv[1:3] == ["--only", "heic-grid"]:
        import pillow_heif
        pillow_heif.register_heif_opener()
        heic_grid(lambda name: os.path.join(OUT, name))
        print("make_format_fixtures: wrote heic-grid.heic, heic-grid-pillow.png")
        return
    missing = [t for t in ("cwebp", "img2webp", "webpmux", "heif-enc", "tiffcp", "tiffset", "convert") if shutil.which(t) is None]
    if not os.path.exists(ADOBE_RGB):
        missing.append("colord-data")
    if missing:
        sys.exit(f"make_format_fixtures: {', '.join(missing)} missing (apt-get install webp libheif-examples colord-data libtiff-tools imagemagick)")
    try:
        import pillow_heif
    except ImportError:
        sys.exit("make_format_fixtures: pillow-heif missing (Tools/.venv/bin/pip install pillow-heif)")
    pillow_heif.register_heif_opener()
    upright, rgba = os.path.join(OUT, "upright.png"), os.path.join(OUT, "rgba.png")
    out = lambda name: os.path.join(OUT, name)

    run("cwebp", "-quiet", "-lossless", "-exact", upright, "-o", out("webp-lossless.webp"))
    assert np.array_equal(pixels(out("webp-lossless.webp")), pixels(upright))
    run("cwebp", "-quiet", "-q", "90", upright, "-o", out("webp-lossy.webp"))
    Image.open(out("webp-lossy.webp")).save(out("webp-lossy-pillow.png"))

    run("cwebp", "-quiet", "-lossless", "-exact", rgba, "-o", out("webp-alpha.webp"))
    assert np.array_equal(pixels(out("webp-alpha.webp")), pixels(rgba))
    run("cwebp", "-quiet", "-q", "90", "-exact", rgba, "-o", out("webp-alpha-lossy.webp"))
    Image.open(out("webp-alpha-lossy.webp")).save(out("webp-alpha-lossy-pillow.png"))

    with tempfile.TemporaryDirectory() as tmp:
        flipped = os.path.join(tmp, "flipped.png")
        Image.open(upright).transpose(Image.ROTATE_180).save(flipped)
        run("img2webp", "-lossless", "-d", "100", upright, flipped, "-o", out("webp-animated.webp"))
        first = Image.open(out("webp-animated.webp"))
        assert getattr(first, "n_frames", 1) == 2
        assert np.array_equal(np.array(first.convert("RGB")), pixels(upright))

        for o in range(1, 9):
            stored = os.path.join(tmp, f"stored-{o}.png")
            Image.open(out(f"orientation-{o}.png")).convert("RGB").save(stored)  # the pixels, no eXIf
            plain = os.path.join(tmp, f"plain-{o}.webp")
            run("cwebp", "-quiet", "-lossless", "-exact", stored, "-o", plain)
            exif = Image.Exif()
            exif[0x0112] = o
            payload = exif.tobytes()  # b"Exif\0\0" + the TIFF structure
            if o not in (3, 6):
                payload = payload[6:]
            exif_file = os.path.join(tmp, f"exif-{o}.bin")
            with open(exif_file, "wb") as f:
                f.write(payload)
            run("webpmux", "-set", "exif", exif_file, plain, "-o", out(f"webp-orientation-{o}.webp"))
            turned = ImageOps.exif_transpose(Image.open(out(f"webp-orientation-{o}.webp")))
            assert np.array_equal(np.array(turned.convert("RGB")), pixels(upright)), o

    run("heif-enc", "-q", "90", "-o", out("heic.heic"), upright)
    Image.open(out("heic.heic")).convert("RGB").save(out("heic-pillow.png"))
    run("heif-enc", "-q", "90", "-o", out("heic-alpha.heic"), rgba)
    Image.open(out("heic-alpha.heic")).convert("RGBA").save(out("heic-alpha-pillow.png"))
    run("heif-enc", "-A", "-q", "90", "-p", "chroma=444", "-o", out("avif.avif"), upright)
    Image.open(out("avif.avif")).convert("RGB").save(out("avif-pillow.png"))
    run("heif-enc", "-A", "-q", "90", "-o", out("avif-420.avif"), upright)
    Image.open(out("avif-420.avif")).convert("RGB").save(out("avif-420-pillow.png"))
    run("heif-enc", "-b", "10", "-q", "95", "-o", out("heic-10bit.heic"), out("rgb16.png"))
    for o in range(1, 9):
        stored = Image.open(out(f"orientation-{o}.png"))
        exif = Image.Exif()
        exif[0x0112] = o
        stored.convert("RGB").save(out(f"heic-orientation-{o}.heic"), quality=95, exif=exif.tobytes())
        back = Image.open(out(f"heic-orientation-{o}.heic"))
        assert back.size == (60, 40) and back.getexif().get(0x0112, 1) == 1, (o, back.size)

    # A colour profile in every format that holds one: Adobe RGB (1998) from Debian's colord-data (CC0).
    shutil.copyfile(ADOBE_RGB, out("adobe-rgb.icc"))
    icc = open(ADOBE_RGB, "rb").read()
    Image.open(upright).convert("RGB").save(out("profile-adobe-rgb.jpg"), quality=95, icc_profile=icc)
    Image.open(upright).convert("RGB").save(out("profile-adobe-rgb.png"), icc_profile=icc)
    run("cwebp", "-quiet", "-lossless", "-metadata", "icc", out("profile-adobe-rgb.png"), "-o", out("profile-adobe-rgb.webp"))
    run("heif-enc", "-q", "90", "-o", out("profile-adobe-rgb.heic"), out("profile-adobe-rgb.png"))
    for ext in ("jpg", "png", "webp", "heic"):
        assert Image.open(out(f"profile-adobe-rgb.{ext}")).info.get("icc_profile") == icc, ext

    # nclx colour descriptions (H.273 code points in the `colr` box, no ICC profile), as AVIFs and some HEICs
    # carry them: Display P3 (P3 primaries, D65, sRGB's curve) becomes an ICC profile; BT.2020 with PQ cannot.
    # pillow-heif writes the box (Debian's heif-enc 1.15 takes the code points but writes no `colr`).
    for name, primaries, transfer in (("heic-nclx-p3.heic", 12, 13), ("heic-nclx-pq.heic", 9, 16)):
        plain = Image.fromarray(pixels(upright, "RGB"))   # pixels only: no profile to write instead
        plain.info["nclx_profile"] = {"color_primaries": primaries, "transfer_characteristics": transfer,
                                      "matrix_coefficients": 6, "full_range_flag": 1}
        plain.save(out(name), quality=90, save_nclx_profile=True)
        back = Image.open(out(name))
        assert "icc_profile" not in back.info and back.info["nclx_profile"]["color_primaries"] == primaries, name

    # TIFF: Pillow's writer (uncompressed and LZW), ImageMagick for 16-bit RGB, libtiff's tiffset for the
    # Orientation tag and tiffcp for a second page.
    Image.open(upright).convert("RGB").save(out("tiff-rgb.tif"))
    Image.open(upright).convert("RGB").save(out("tiff-lzw.tif"), compression="tiff_lzw")
    Image.open(rgba).save(out("tiff-rgba.tif"), compression="tiff_adobe_deflate")
    Image.open(out("gray8.png")).save(out("tiff-gray.tif"))
    run("convert", out("rgb16.png"), "-depth", "16", "-compress", "zip", out("tiff-16bit.tif"))
    Image.open(upright).convert("RGB").save(out("profile-adobe-rgb.tif"), icc_profile=icc)
    assert Image.open(out("profile-adobe-rgb.tif")).info.get("icc_profile") == icc
    with tempfile.TemporaryDirectory() as tmp:
        second = os.path.join(tmp, "second.tif")
        Image.open(upright).transpose(Image.ROTATE_180).convert("RGB").save(second)
        run("tiffcp", out("tiff-rgb.tif"), second, out("tiff-pages.tif"))
        for o in range(1, 9):
            Image.open(out(f"orientation-{o}.png")).convert("RGB").save(out(f"tiff-orientation-{o}.tif"))
            run("tiffset", "-s", "274", str(o), out(f"tiff-orientation-{o}.tif"))
            turned = ImageOps.exif_transpose(Image.open(out(f"tiff-orientation-{o}.tif")))
            assert np.array_equal(np.array(turned.convert("RGB")), pixels(upright)), o
    bmp_and_gif(out)
    heic_grid(out)
    made = ("bmp-", "gif", "webp-", "heic", "avif", "profile-", "adobe-", "tiff-")
    print("make_format_fixtures: wrote", ", ".join(sorted(n for n in os.listdir(OUT) if n.startswith(made))))


if __name__ == "__main__":
    main()
