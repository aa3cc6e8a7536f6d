// Placeholder replaced by the CLI in this same change.
int main() { return 0; }
