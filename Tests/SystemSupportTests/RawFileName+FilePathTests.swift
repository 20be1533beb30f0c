import SystemPackage
import SystemSupport
import Testing

/// `RawFileName.filePath(_:)` and `text(_:)`: the kit's text for a path and
/// a `FilePath` name the same bytes, both ways, a name that is not UTF-8
/// included (0xFF carried as U+10FF00 + 0xFF = U+10FFFF, written out by hand).
struct RawFileNameFilePathTests {
    /// The bytes a `FilePath` names, without its NUL.
    private func bytes(_ filePath: FilePath) -> [UInt8] {
        filePath.withPlatformString { pointer in
            var result: [UInt8] = []
            var index = 0
            while pointer[index] != 0 {
                result.append(UInt8(bitPattern: pointer[index]))
                index += 1
            }
            return result
        }
    }

    @Test func aNameThatIsNotUTF8IsTheSameBytesBothWays() {
        let text = "/tmp/bad\u{10FFFF}.plist"
        let filePath = RawFileName.filePath(text)
        #expect(bytes(filePath) == Array("/tmp/bad".utf8) + [0xFF] + Array(".plist".utf8))
        #expect(RawFileName.text(filePath) == text)
    }

    @Test func utf8NamesAndTheEmptyPathAreAsTheyAre() {
        #expect(RawFileName.filePath("/srv/Ünïcode copy.ict") == FilePath("/srv/Ünïcode copy.ict"))
        #expect(RawFileName.text(FilePath("relative/a b.txt")) == "relative/a b.txt")
        #expect(RawFileName.filePath("") == FilePath())
        #expect(RawFileName.text(FilePath()) == "")
    }
}
