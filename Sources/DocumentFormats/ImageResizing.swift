extension PNGImage {
    /// The image resized to exactly `width × height` (the aspect ratio is
    /// not kept), with high-quality filtering in each direction separately:
    /// when shrinking, area averaging (each output pixel is the mean of the
    /// source area it covers, partial pixels weighted by the part covered,
    /// so any ratio, integer or not, is right); when enlarging, bilinear
    /// interpolation between pixel centres. Colours are averaged
    /// premultiplied by alpha, so transparent pixels do not bleed.
    public func resized(width newWidth: Int, height newHeight: Int) -> PNGImage {
        precondition(newWidth > 0 && newHeight > 0, "resizing to \(newWidth)×\(newHeight)")
        if newWidth == width && newHeight == height { return self }
        var samples = [Float](repeating: 0, count: pixels.count)
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Float(pixels[offset + 3]) / 255
            samples[offset] = Float(pixels[offset]) * alpha
            samples[offset + 1] = Float(pixels[offset + 1]) * alpha
            samples[offset + 2] = Float(pixels[offset + 2]) * alpha
            samples[offset + 3] = Float(pixels[offset + 3])
        }
        let horizontal = Self.filterTaps(from: width, to: newWidth)
        var rows = [Float](repeating: 0, count: newWidth * height * 4)
        for y in 0..<height {
            for (x, taps) in horizontal.enumerated() {
                let out = (y * newWidth + x) * 4
                for tap in taps {
                    let source = (y * width + tap.index) * 4
                    for channel in 0..<4 { rows[out + channel] += samples[source + channel] * tap.weight }
                }
            }
        }
        let vertical = Self.filterTaps(from: height, to: newHeight)
        var result = [UInt8](repeating: 0, count: newWidth * newHeight * 4)
        for (y, taps) in vertical.enumerated() {
            for x in 0..<newWidth {
                var sum: (Float, Float, Float, Float) = (0, 0, 0, 0)
                for tap in taps {
                    let source = (tap.index * newWidth + x) * 4
                    sum.0 += rows[source] * tap.weight
                    sum.1 += rows[source + 1] * tap.weight
                    sum.2 += rows[source + 2] * tap.weight
                    sum.3 += rows[source + 3] * tap.weight
                }
                let out = (y * newWidth + x) * 4
                let alpha = sum.3 / 255
                let unpremultiply: Float = alpha > 0 ? 1 / alpha : 0
                result[out] = Self.byte(sum.0 * unpremultiply)
                result[out + 1] = Self.byte(sum.1 * unpremultiply)
                result[out + 2] = Self.byte(sum.2 * unpremultiply)
                result[out + 3] = Self.byte(sum.3)
            }
        }
        return PNGImage(width: newWidth, height: newHeight, pixels: result)
    }

    /// The image scaled to fit within `side × side`, keeping its aspect
    /// ratio; unchanged when it already fits.
    public func fitting(within side: Int) -> PNGImage {
        guard width > side || height > side else { return self }
        let scale = Double(side) / Double(max(width, height))
        return resized(
            width: max(1, Int((Double(width) * scale).rounded())),
            height: max(1, Int((Double(height) * scale).rounded())))
    }

    /// The image's centred square (the middle of its longer side cut away),
    /// resized to `side × side`: an aspect fill, as the photo app's
    /// `imageByScalingAndCroppingForSize:` makes its thumbnails.
    public func croppedToSquare(side: Int) -> PNGImage {
        precondition(side > 0, "a square of side \(side)")
        let square = min(width, height)
        guard width != height else { return resized(width: side, height: side) }
        let left = (width - square) / 2
        let top = (height - square) / 2
        var cropped = [UInt8](repeating: 0, count: square * square * 4)
        for y in 0..<square {
            let source = ((top + y) * width + left) * 4
            cropped[(y * square * 4)..<((y + 1) * square * 4)] = pixels[source..<(source + square * 4)]
        }
        return PNGImage(width: square, height: square, pixels: cropped).resized(width: side, height: side)
    }

    /// One source sample and its weight in an output sample.
    struct FilterTap {
        var index: Int
        var weight: Float
    }

    /// For each of `newCount` output samples, the source samples (of
    /// `count`) that make it and their weights, which add up to 1.
    static func filterTaps(from count: Int, to newCount: Int) -> [[FilterTap]] {
        let scale = Double(count) / Double(newCount)
        return (0..<newCount).map { output in
            if scale > 1 {
                // Area averaging: the output sample covers [start, end) of the source.
                let start = Double(output) * scale
                let end = start + scale
                var taps: [FilterTap] = []
                var index = Int(start)
                while Double(index) < end, index < count {
                    let covered = min(end, Double(index + 1)) - max(start, Double(index))
                    if covered > 1e-9 { taps.append(FilterTap(index: index, weight: Float(covered / scale))) }
                    index += 1
                }
                return taps
            }
            // Bilinear: between the two source centres around the output centre.
            let centre = min(max((Double(output) + 0.5) * scale - 0.5, 0), Double(count - 1))
            let left = Int(centre)
            let fraction = centre - Double(left)
            guard fraction > 1e-9, left + 1 < count else { return [FilterTap(index: left, weight: 1)] }
            return [FilterTap(index: left, weight: Float(1 - fraction)), FilterTap(index: left + 1, weight: Float(fraction))]
        }
    }

    private static func byte(_ value: Float) -> UInt8 {
        UInt8(min(max(value.rounded(), 0), 255))
    }
}
