import Testing

@testable import DocumentFormats

struct ImageResizingTests {
    @Test(arguments: [(600, 280), (512, 280), (451, 280), (5, 2), (7, 3), (100, 280)])
    func filterWeightsAddUpToOne(from: Int, to: Int) {
        for taps in PNGImage.filterTaps(from: from, to: to) {
            let total = taps.map(\.weight).reduce(0, +)
            let inRange = taps.allSatisfy { (0..<from).contains($0.index) }
            #expect(abs(total - 1) < 1e-5)
            #expect(inRange)
        }
    }

    @Test func areaAveragingAtANonIntegerRatioWeighsPartlyCoveredPixels() {
        // 5 → 2: each output covers 2.5 source pixels.
        let taps = PNGImage.filterTaps(from: 5, to: 2)
        #expect(taps[0].map(\.index) == [0, 1, 2])
        #expect(taps[0].map(\.weight) == [0.4, 0.4, 0.2])
        #expect(taps[1].map(\.index) == [2, 3, 4])
    }

    @Test func shrinkingAveragesAreas() {
        // Black and white columns shrink to mid grey.
        var pixels: [UInt8] = []
        for _ in 0..<4 { for x in 0..<4 { pixels += x % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] } }
        let small = PNGImage(width: 4, height: 4, pixels: pixels).resized(width: 2, height: 2)
        let grey = small.pixels.enumerated().allSatisfy { $0.offset % 4 == 3 ? $0.element == 255 : abs(Int($0.element) - 128) <= 1 }
        #expect(grey)
    }

    @Test func transparentPixelsDoNotBleed() {
        let image = PNGImage(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 255, 0, 0])
        let resized = image.resized(width: 1, height: 1)
        #expect(Array(resized.pixels[0..<3]) == [255, 0, 0])
        #expect(resized.pixels[3] == 128)
    }

    @Test func fittingKeepsTheAspectRatio() {
        let fitted = Fixtures.photo(width: 1200, height: 600).fitting(within: 560)
        #expect((fitted.width, fitted.height) == (560, 280))
        #expect(Fixtures.photo(width: 300, height: 200).fitting(within: 560).width == 300)
    }
}
