int work(int argc, char **argv);
int long_names(int);
int main(int argc, char **argv) { return work(argc, argv) + long_names(argc); }
