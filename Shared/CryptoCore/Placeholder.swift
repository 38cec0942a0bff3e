// Placeholder until the CryptoCore module lands.
