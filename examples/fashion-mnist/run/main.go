// Command run runs one sampler of the Fashion-MNIST experiment (package
// fashionmnist, one folder up) and prints the test accuracy and NLL of its
// model average:
//
//	go run ./examples/fashion-mnist/run --data ../shared/data/fashion-mnist --train 10000 --sampler sghmc --set lr=5e-6
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	fashionmnist "github.com/temper-ppl/temper/examples/fashion-mnist"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := fashionmnist.Main(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "fashion-mnist:", err)
		}
		os.Exit(2)
	}
}
