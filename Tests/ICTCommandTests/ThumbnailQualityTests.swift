import Foundation
import TestSupport
import Testing

/// Acceptance 3: each sample's stored thumbnail against ImageMagick's
/// `convert PHOTO -resize 280x280! REF.png` on its stored photo: PSNR ≥ 30 dB.
struct ThumbnailQualityTests {
    /// Debian's ImageMagick by full path: a `convert` earlier on PATH may be a stand-in.
    static let convert = "/usr/bin/convert"
    static let compare = "/usr/bin/compare"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: convert), "ImageMagick (scripts/install-deps.sh test) is needed"))
    func thumbnailsMatchImageMagickWithin30dB() throws {
        let folder = try ScratchFolder.make("psnr").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let samples = try DocumentCommandTests.samplePaths(in: DocumentCommandTests.sampleDocs)
        #expect(samples.count >= 6)
        for (index, sample) in samples.enumerated() {
            let base = "\(folder)/\(index)"
            let export = try ICTRunner.run(["convert", sample, "--format", "json", "-o", base + ".json"])
            #expect(export.status == 0, "\(export.stderr)")
            try Self.tool(Self.convert, [base + ".photo.png", "-resize", "280x280!", base + ".ref.png"])
            // compare prints the PSNR on standard error (exit 1 when the images differ at all).
            let psnr =
                Double(
                    try Self.tool(Self.compare, ["-metric", "PSNR", base + ".thumbnail.png", base + ".ref.png", "null:"])
                        .trimmingCharacters(in: .whitespacesAndNewlines)) ?? .infinity
            #expect(psnr >= 30, "\(sample): PSNR \(psnr) dB")
        }
    }

    @discardableResult
    static func tool(_ path: String, _ arguments: [String]) throws -> String {
        try ProgramRunner.run(path, arguments).stderr
    }
}
