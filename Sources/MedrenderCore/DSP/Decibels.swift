import Foundation

/// Converts decibels to a linear gain factor.
public func decibelsToGain(_ decibels: Double) -> Double {
    pow(10, decibels / 20)
}

/// Converts a linear gain factor to decibels (−∞ for 0).
public func gainToDecibels(_ gain: Double) -> Double {
    20 * log10(gain)
}
