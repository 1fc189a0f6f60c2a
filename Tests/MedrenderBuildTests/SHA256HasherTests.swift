import Foundation
import MedrenderBuild
import MedrenderTestSupport
import Testing

/// SHA-256 on swift-crypto: the FIPS 180-2 vectors, pieces fed across block boundaries, files.
@Suite struct SHA256HasherTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func sha256KnownVectors(input: String, digest: String) {
        #expect(SHA256Hasher.hash(input) == digest)
    }

    @Test func sha256OfAMillionAsInPiecesAndOfAFile() throws {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256Hasher.hash(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // Fed in uneven pieces, across block boundaries, the digest is the same.
        var hasher = SHA256Hasher()
        var offset = 0
        for size in [1, 63, 64, 65, 127, 1000, 3] {
            hasher.update(million[offset..<(offset + size)])
            offset += size
        }
        hasher.update(million[offset...])
        #expect(hasher.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // Padding edge cases (55, 56, 64 bytes), against sha256sum when it is there.
        let dir = TemporaryDirectory("sha")
        for count in [55, 56, 63, 64, 119, 120] {
            let text = String(repeating: "x", count: count)
            let path = dir.write("f\(count)", text)
            #expect(SHA256Hasher.hashFile(at: path) == SHA256Hasher.hash(text))
            if let tool = which("sha256sum") {
                let out = try runProcess(tool, [path]).stdout
                #expect(out.hasPrefix(SHA256Hasher.hash(text)))
            }
        }
    }
}
