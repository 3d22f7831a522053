extension ClassifyImageRequest.CropAndScale {
    /// `image` as RGB, fitted to `size × size` by this option with the Pillow-exact Lanczos resampler (so the
    /// network input equals a Pillow reference's byte for byte).
    public func apply(to image: Image, size: Int) -> Image {
        let rgb = image.rgb(), w = rgb.width, h = rgb.height
        switch self {
        case .centerCrop:
            let s = min(w, h)
            let square = Compositing.crop(rgb, to: PixelRect(x: (w - s) / 2, y: (h - s) / 2, width: s, height: s))
            return LanczosResampler.resize(square, width: size, height: size)
        case .scaleFill:
            return LanczosResampler.resize(rgb, width: size, height: size)
        case .scaleFit:
            let longer = Double(max(w, h))
            let sw = max(1, Int((Double(w) * Double(size) / longer).rounded(.toNearestOrEven)))
            let sh = max(1, Int((Double(h) * Double(size) / longer).rounded(.toNearestOrEven)))
            let scaled = LanczosResampler.resize(rgb, width: sw, height: sh)
            return Compositing.paste(scaled, width: size, height: size, x: (size - sw) / 2, y: (size - sh) / 2)
        }
    }
}
