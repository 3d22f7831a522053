/// What goes behind the subject.
public enum Background: Sendable, Equatable {
    /// Keep the photo's own background (effects apply to it).
    case original
    /// Nothing: the result has an alpha channel.
    case transparent
    /// A flat colour.
    case color(RGB)
    /// Another picture, scaled (Lanczos, aspect not kept) to the photo's extent, as Core Image's compositing
    /// with a scaled background does.
    case image(Image)

    /// Parses `transparent`, `#RRGGBB` or a path (read with `Image(contentsOfFile:)`).
    public init(argument: String) throws {
        if argument == "transparent" { self = .transparent }
        else if argument.hasPrefix("#") { self = .color(try RGB(hex: argument)) }
        else { self = .image(try Image(contentsOfFile: argument)) }
    }
}

/// An 8-bit sRGB colour.
public struct RGB: Sendable, Equatable {
    public var r: UInt8, g: UInt8, b: UInt8
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }

    /// Parses `#RRGGBB`.
    public init(hex: String) throws {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, let v = UInt32(digits, radix: 16) else {
            throw SubjectLiftingError("'\(hex)' is not a colour: use #RRGGBB, e.g. #00ff88")
        }
        self.init(UInt8(v >> 16), UInt8((v >> 8) & 0xff), UInt8(v & 0xff))
    }

    public static let white = RGB(255, 255, 255)
}

/// The seed app's effects (done with Core Image there), with their strengths.
public enum Effect: Sendable, Equatable {
    /// Background exposure lowered by `ev` stops (CIExposureAdjust, in linear light). Default 2.
    case darken(ev: Double = 2)
    /// Background blurred (Gaussian, σ = `radius` px), with a white halo: the subject's silhouette blurred by
    /// `haloRadius` and mixed into the background at `haloStrength`, so the subject glows.
    case blur(radius: Double = 12, haloRadius: Double = 16, haloStrength: Double = 0.6)
    /// The chosen subjects as they are, everything else dimmed to `dim` of its (sRGB) brightness, and the chosen
    /// subjects outlined `outlineWidth` px wide in `outlineColor`.
    case highlight(dim: Double = 0.35, outlineWidth: Int = 3, outlineColor: RGB = .white)
    /// The mask rendered in one colour (CIColorMonochrome of the mask): colour × mask on black.
    case maskPreview(color: RGB = RGB(0, 170, 255))

    public static let names = ["darken", "blur", "highlight", "mask-preview"]
}

extension Compositing {
    /// The photo with `mask` (0…1, the chosen subjects) kept, `background` behind it and `effect` applied.
    /// Transparent backgrounds give RGBA (alpha = mask); all others RGB. `subject`: the subject's own colours
    /// when they are not the photo's (``Decontamination``); the photo stays the `.original` background.
    public static func render(_ image: Image, mask: [Float], background: Background, effect: Effect?,
                              subject: Image? = nil) throws -> Image {
        let w = image.width, h = image.height
        precondition(mask.count == w * h, "mask must match the image")
        if case .maskPreview(let color)? = effect {
            var out = [UInt8](repeating: 0, count: w * h * 3)
            for i in 0..<mask.count {
                out[3 * i] = UInt8(Float(color.r) * mask[i] + 0.5)
                out[3 * i + 1] = UInt8(Float(color.g) * mask[i] + 0.5)
                out[3 * i + 2] = UInt8(Float(color.b) * mask[i] + 0.5)
            }
            return Image(width: w, height: h, channels: 3, pixels: out)
        }
        var layer: Image
        switch background {
        case .transparent:
            if effect != nil { throw SubjectLiftingError("effects need an opaque background (the photo's, a colour or an image), not transparent") }
            return cutout(subject ?? image, alpha: Image(width: w, height: h, channels: 1, pixels: mask.map { UInt8($0 * 255 + 0.5) }))
        case .original: layer = image.rgb()
        case .color(let c): layer = Image(width: w, height: h, channels: 3, pixels: Array(repeating: [c.r, c.g, c.b], count: w * h).flatMap { $0 })
        case .image(let picture): layer = LanczosResampler.resize(picture.rgb(), width: w, height: h)
        }
        switch effect {
        case .darken(let ev)?: layer = exposure(layer, ev: -ev)
        case .blur(let radius, let haloRadius, let haloStrength)?:
            layer = blurred(layer, sigma: radius)
            var halo = mask
            GaussianBlur.blur(&halo, width: w, height: h, sigma: haloRadius)
            layer = blend(Image(width: w, height: h, channels: 3, pixels: [UInt8](repeating: 255, count: w * h * 3)),
                          over: layer, mask: halo.map { min($0 * Float(haloStrength), 1) })
        case .highlight(let dim, _, _)?:
            layer = Image(width: w, height: h, channels: 3, pixels: layer.pixels.map { UInt8(Double($0) * dim + 0.5) })
        case .maskPreview?, nil: break
        }
        var out = blend(subject ?? image, over: layer, mask: mask)
        if case .highlight(_, let width, let color)? = effect, width > 0 {
            out = outline(out, mask: mask, width: width, color: color)
        }
        return out
    }

    /// Multiplies linear-light intensity by 2^ev.
    static func exposure(_ image: Image, ev: Double) -> Image { exposure(image, factor: pow(2, ev)) }

    static func exposure(_ image: Image, factor: Double) -> Image {
        let table: [UInt8] = (0..<256).map { v in
            let s = Double(v) / 255
            let linear = s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            let l = min(linear * factor, 1)
            let back = l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055
            return UInt8(min(max(back * 255 + 0.5, 0), 255))
        }
        return Image(width: image.width, height: image.height, channels: image.channels,
                     pixels: image.pixels.map { table[Int($0)] })
    }

    static func blurred(_ image: Image, sigma: Double) -> Image {
        let n = image.width * image.height
        var out = [UInt8](repeating: 0, count: n * 3)
        for c in 0..<3 {
            var plane = (0..<n).map { Float(image.pixels[3 * $0 + c]) }
            GaussianBlur.blur(&plane, width: image.width, height: image.height, sigma: sigma)
            for i in 0..<n { out[3 * i + c] = UInt8(min(max(plane[i] + 0.5, 0), 255)) }
        }
        return Image(width: image.width, height: image.height, channels: 3, pixels: out)
    }

    /// Paints the ring `width` px wide just outside the mask's ≥ 0.5 region.
    static func outline(_ image: Image, mask: [Float], width: Int, color: RGB) -> Image {
        let w = image.width, h = image.height
        let inside = mask.map { $0 >= 0.5 }
        // Chessboard distance to the region, by two passes of a 3×3 dilation per pixel of width.
        var grown = inside
        for _ in 0..<width {
            var next = grown
            for y in 0..<h {
                for x in 0..<w where !grown[y * w + x] {
                    search: for dy in -1...1 {
                        for dx in -1...1 {
                            let nx = x + dx, ny = y + dy
                            if nx >= 0, nx < w, ny >= 0, ny < h, grown[ny * w + nx] { next[y * w + x] = true; break search }
                        }
                    }
                }
            }
            grown = next
        }
        var px = image.pixels
        for i in 0..<(w * h) where grown[i] && !inside[i] {
            px[3 * i] = color.r; px[3 * i + 1] = color.g; px[3 * i + 2] = color.b
        }
        return Image(width: w, height: h, channels: 3, pixels: px)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
