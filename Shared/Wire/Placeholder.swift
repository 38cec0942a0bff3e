// Placeholder until the Wire module lands.
