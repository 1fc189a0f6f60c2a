import Crypto
import Foundation

import MedrenderIO

/// SHA-256 of bytes, strings and files, as lowercase hex, on swift-crypto (its assembly
/// implementation hashes a large sound many times faster than portable Swift). Feed it bytes
/// with `update`, then take the digest with `finalize`.
public struct SHA256Hasher: Sendable {
    private var hasher = SHA256()

    public init() {}

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    public mutating func update(_ string: String) { update(Array(string.utf8)) }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    /// The 32-byte digest.
    public mutating func finalize() -> [UInt8] { Array(hasher.finalize()) }

    /// The digest as 64 lowercase hex digits.
    public mutating func finalizeHex() -> String { Self.hex(finalize()) }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The hex digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> String {
        var h = SHA256Hasher()
        bytes.withUnsafeBytes { h.update($0) }
        return h.finalizeHex()
    }

    /// The hex digest of `string`'s UTF-8.
    public static func hash(_ string: String) -> String { hash(Array(string.utf8)) }

    /// The hex digest of a regular file's bytes, read in 1 MiB blocks; nil when it cannot be read.
    public static func hashFile(at path: String) -> String? { try? hash(fileAt: path) }

    /// The hex digest of a regular file's bytes, or why it cannot be read.
    public static func hash(fileAt path: String) throws -> String {
        var h = SHA256Hasher()
        try FileChunks.forEach(inFileAt: path) { h.update($0) }
        return h.finalizeHex()
    }
}
