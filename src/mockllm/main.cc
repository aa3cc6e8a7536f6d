// Placeholder replaced by the scripted server in this same change.
int main() { return 0; }
