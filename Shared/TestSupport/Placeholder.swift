// Placeholder until the TestSupport module lands.
