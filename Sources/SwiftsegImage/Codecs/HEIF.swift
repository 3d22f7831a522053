import Foundation
import _CHEIF

/// HEIF files through libheif: HEIC (HEVC-coded, what iPhones write; libde265 decodes it) and AVIF (AV1-coded;
/// dav1d or libaom). The primary image, as libheif composes it (grids of tiles included), turned by the file's
/// own rotation, mirroring and crop (`irot`, `imir`, `clap`), which take the place of EXIF orientation in HEIF.
/// These are part of the image, always applied, `appliesOrientation` or not: a coded picture is often padded
/// (an iPhone's tiles, an encoder's 64-pixel blocks) and only the crop says what of it is the photo. High bit
/// depths are reduced to 8 bits. Read only.
enum HEIF {
    /// The brands that mark an ISO base media file as a HEIF image of each coding (`ftyp`'s major and
    /// compatible brands).
    static let avifBrands: Set<String> = ["avif", "avis"]
    static let heicBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"]

    /// The brands of the `ftyp` box the file starts with, nil when it does not start with one.
    static func brands(_ b: [UInt8]) -> Set<String>? {
        guard b.count >= 16, Array(b[4..<8]) == Array("ftyp".utf8) else { return nil }
        let size = min(b.count, Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3]))
        guard size >= 16 else { return nil }
        var brands: Set<String> = [String(decoding: b[8..<12], as: UTF8.self)]
        for i in stride(from: 16, to: size - 3, by: 4) { brands.insert(String(decoding: b[i..<(i + 4)], as: UTF8.self)) }
        return brands
    }

    static func isAVIF(_ b: [UInt8]) -> Bool { !(brands(b)?.isDisjoint(with: avifBrands) ?? true) }
    static func isHEIC(_ b: [UInt8]) -> Bool { !isAVIF(b) && !(brands(b)?.isDisjoint(with: heicBrands) ?? true) }

    /// A read file's primary image handle, given to `body` with libheif's functions (opened on first use:
    /// ``_CHEIF``'s shim); libheif's own size limit set to `options.maxDimension` (it also bounds the tiles of a
    /// grid).
    static func withPrimaryImage<T>(_ bytes: [UInt8], name: String, format: String, options: DecodingOptions,
                                    _ body: (OpaquePointer, swiftseg_heif_api) throws -> T) throws -> T {
        guard let heif = swiftseg_heif()?.pointee else {
            throw ImageError(.codecFailure, "\(name): cannot decode \(format): libheif (Debian's libheif1) is not installed")
        }
        guard let context = heif.context_alloc() else { throw ImageError(.codecFailure, "\(name): cannot start the \(format) decoder") }
        defer { heif.context_free(context) }
        heif.context_set_maximum_image_size_limit(context, Int32(min(options.maxDimension, Int(Int32.max))))
        // A grid's tiles (iPhones store photos as 512-px tiles) decoded on as many threads as there are cores: a
        // 12 MP grid 0.81 → 0.40–0.46 s on two (PERF.md). One HEVC image is decoded on one thread whatever this says.
        heif.context_set_max_decoding_threads(context, Int32(ProcessInfo.processInfo.activeProcessorCount))
        return try bytes.withUnsafeBytes { raw in
            try check(heif.context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil), name, format)
            var handle: OpaquePointer?
            try check(heif.context_get_primary_image_handle(context, &handle), name, format)
            guard let handle else { throw ImageError(.unreadableImage, "\(name): corrupt \(format): no primary image") }
            defer { heif.image_handle_release(handle) }
            return try body(handle, heif)
        }
    }

    static func check(_ error: heif_error, _ name: String, _ format: String) throws {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        if error.code == heif_error_Memory_allocation_error {
            throw ImageError(.tooLarge, "\(name): \(format) too large to decode: \(message)")
        }
        if error.subcode == heif_suberror_Security_limit_exceeded {
            throw ImageError(.tooLarge, "\(name): \(format) over the decoding limits: \(message)")
        }
        throw ImageError(.unreadableImage, "\(name): corrupt or unsupported \(format): \(message)")
    }

    /// The primary image's size as it will be decoded (turned and cropped).
    static func probe(_ bytes: [UInt8], name: String, format: String, options: DecodingOptions) throws -> (width: Int, height: Int) {
        try withPrimaryImage(bytes, name: name, format: format, options: options) { handle, heif in
            (Int(heif.image_handle_get_width(handle)), Int(heif.image_handle_get_height(handle)))
        }
    }

    /// The primary image's ICC profile: its `colr` box of type `prof` or `rICC`, or the profile that says what an
    /// `nclx` colour description says (``ColourSpace``); nil for none, for sRGB, and for descriptions no ICC
    /// matrix/TRC profile can say (PQ, HLG).
    static func iccProfile(_ bytes: [UInt8]) -> [UInt8]? {
        (try? withPrimaryImage(bytes, name: "", format: "HEIF", options: DecodingOptions()) { profile(of: $0, $1) }) ?? nil
    }

    static func profile(of handle: OpaquePointer, _ heif: swiftseg_heif_api) -> [UInt8]? {
        let type = heif.image_handle_get_color_profile_type(handle)
        if type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC {
            var profile = [UInt8](repeating: 0, count: heif.image_handle_get_raw_color_profile_size(handle))
            guard !profile.isEmpty, heif.image_handle_get_raw_color_profile(handle, &profile).code == heif_error_Ok else { return nil }
            return profile
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif.image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx else { return nil }
        defer { heif.nclx_color_profile_free(nclx) }
        guard let space = ColourSpace(primaries: Int(nclx.pointee.color_primaries.rawValue),
                                      transfer: Int(nclx.pointee.transfer_characteristics.rawValue)),
              !space.isSRGB else { return nil }
        return space.iccProfile
    }

    static func decode(_ bytes: [UInt8], name: String, format: String, options: DecodingOptions) throws -> Image {
        try withPrimaryImage(bytes, name: name, format: format, options: options) { handle, heif in
            let alpha = heif.image_handle_has_alpha_channel(handle) != 0
            guard let decoding = heif.decoding_options_alloc() else {
                throw ImageError(.codecFailure, "\(name): cannot start the \(format) decoder")
            }
            defer { heif.decoding_options_free(decoding) }
            decoding.pointee.convert_hdr_to_8bit = 1
            var decoded: OpaquePointer?
            try check(heif.decode_image(handle, &decoded, heif_colorspace_RGB,
                                        alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, decoding), name, format)
            guard let decoded else { throw ImageError(.unreadableImage, "\(name): corrupt \(format): nothing decoded") }
            defer { heif.image_release(decoded) }
            let width = Int(heif.image_get_width(decoded, heif_channel_interleaved))
            let height = Int(heif.image_get_height(decoded, heif_channel_interleaved))
            var stride: Int32 = 0
            guard width > 0, height > 0, let plane = heif.image_get_plane_readonly(decoded, heif_channel_interleaved, &stride),
                  heif.image_get_bits_per_pixel_range(decoded, heif_channel_interleaved) == 8 else {
                throw ImageError(.unreadableImage, "\(name): corrupt \(format): no 8-bit picture decoded")
            }
            let channels = alpha ? 4 : 3, row = width * channels
            var pixels = [UInt8](repeating: 0, count: row * height)
            pixels.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    (dst.baseAddress! + y * row).update(from: plane + y * Int(stride), count: row)
                }
            }
            return Image(width: width, height: height, channels: channels, pixels: pixels).withProfile(profile(of: handle, heif))
        }
    }
}

/// What HEIC and AVIF share: everything but their names and brands, through ``HEIF``.
protocol HEIFCodec: ReadOnlyCodec {}

extension HEIFCodec {
    static func probe(_ bytes: [UInt8], name: String, options: DecodingOptions) throws -> (width: Int, height: Int) {
        try HEIF.probe(bytes, name: name, format: self.name, options: options)
    }
    static func decode(_ bytes: [UInt8], name: String, options: DecodingOptions,
                       minimumLongerSide: Int?) throws -> (image: Image, denominator: Int) {
        (try HEIF.decode(bytes, name: name, format: self.name, options: options), 1)
    }
    /// The picture carries its profile from the one opening; no EXIF orientation (the turns are applied).
    static func decodePicture(_ bytes: [UInt8], name: String, options: DecodingOptions,
                              minimumLongerSide: Int?) throws -> (image: Image, denominator: Int, orientation: ExifOrientation?) {
        (try HEIF.decode(bytes, name: name, format: self.name, options: options), 1, nil)
    }
    /// The file's `irot`/`imir` turn it upright as it is decoded; an EXIF orientation inside, if any, describes
    /// the same turn and is not applied again.
    static func orientation(_ bytes: [UInt8]) -> ExifOrientation? { nil }
    static func iccProfile(_ bytes: [UInt8]) -> [UInt8]? { HEIF.iccProfile(bytes) }
}

/// HEIC: HEVC-coded HEIF (iPhone photos).
enum HEICCodec: HEIFCodec {
    static let name = "HEIC"
    static let extensions = ["heic", "heif"]
    static let mediaType = "image/heic"
    static func matches(_ bytes: [UInt8]) -> Bool { HEIF.isHEIC(bytes) }
}

/// AVIF: AV1-coded HEIF.
enum AVIFCodec: HEIFCodec {
    static let name = "AVIF"
    static let extensions = ["avif"]
    static let mediaType = "image/avif"
    static func matches(_ bytes: [UInt8]) -> Bool { HEIF.isAVIF(bytes) }
}
