import Foundation
import PackageFormat
import TestSupport
import Testing

/// SHA-256 against Python's `hashlib`: the empty input, FIFO 180-2's "abc"
/// and two-block vectors, every length around the one- and two-block
/// padding boundaries, and a megabyte fed in uneven pieces.
struct SHA256DigestTests {
    /// `hashlib.sha256` of each input, hex, one per line.
    static func pythonDigests(_ inputs: [[UInt8]]) throws -> [String] {
        let script = """
            import hashlib, sys
            data = sys.stdin.buffer.read()
            offset = 0
            for count in map(int, sys.argv[1:]):
                print(hashlib.sha256(data[offset:offset + count]).hexdigest())
                offset += count
            """
        let output = try PythonScript.run(script, arguments: inputs.map { String($0.count) }, input: Data(inputs.joined()))
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func matchesHashlibOnTheStandardsVectorsAndEveryPaddingBoundary() throws {
        var inputs: [[UInt8]] = [[], Array("abc".utf8), Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)]
        // 55 and 56 bytes: the length field fits in the block or needs another; 64, 119, 120, 128 likewise.
        for count in 0...130 { inputs.append((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }) }
        let expected = try Self.pythonDigests(inputs)
        #expect(expected.count == inputs.count)
        // FIPS 180-2, appendix B.1, written down: the digest of "abc".
        #expect(expected[1] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        for (input, wanted) in zip(inputs, expected) {
            #expect(Self.hex(input.withUnsafeBytes { SHA256Digest.of($0) }) == wanted, "\(input.count) bytes")
        }
    }

    @Test func aMegabyteFedInUnevenPiecesGivesTheDigestOfTheWhole() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(1 << 20) + 13).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var digest = SHA256Digest()
        var offset = 0
        for piece in [1, 63, 64, 65, 1000, 4095, 70_000].cycled() {
            guard offset < bytes.count else { break }
            let end = min(offset + piece, bytes.count)
            bytes[offset..<end].withUnsafeBytes { digest.update($0) }
            offset = end
        }
        #expect(Self.hex(digest.finish()) == (try Self.pythonDigests([bytes])).first)
    }
}

extension Array {
    /// The elements over and over.
    fileprivate func cycled() -> AnySequence<Element> {
        AnySequence { () -> AnyIterator<Element> in
            var index = 0
            return AnyIterator {
                defer { index = (index + 1) % count }
                return self[index]
            }
        }
    }
}
