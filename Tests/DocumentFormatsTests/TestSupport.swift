import Foundation
import TestSupport

@testable import DocumentFormats

enum Fixtures {
    /// A `width × height` opaque image with smooth gradients and some detail.
    static func photo(width: Int, height: Int) -> PNGImage {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                pixels.append(UInt8(x * 255 / max(width - 1, 1)))
                pixels.append(UInt8(y * 255 / max(height - 1, 1)))
                pixels.append(UInt8((x / 8 + y / 8) % 2 == 0 ? 64 : 192))
                pixels.append(255)
            }
        }
        return PNGImage(width: width, height: height, pixels: pixels)
    }

    /// A saved document with every field and a 600×600 photo, and its path.
    static func savedDocument(in folder: ScratchFolder, name: String = "Friend.ict") throws -> String {
        let document = ICTDocumentFile()
        try document.setFirstName("Ada")
        try document.setLastName("Lovelace")
        try document.setDisplayName("Ada L")
        try document.setFavoriteNumber(7.5)
        try document.setPhoto(pngBytes: try photo(width: 600, height: 600).pngBytes())
        let path = folder.path + "/" + name
        try document.save(to: path)
        return path
    }

    static func inode(_ path: String) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }
}
