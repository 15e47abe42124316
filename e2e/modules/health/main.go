// Command headroom-health judges live objects with the GitOps tools' own health code:
// Argo CD's (gitops-engine pkg/health, GetResourceHealth) and Flux's (kstatus,
// sigs.k8s.io/cli-utils pkg/kstatus/status, Compute). It reads a kubectl List
// (`kubectl get daemonsets,deployments -o json`) on stdin and prints one verdict per
// object as JSON, so the live tier can compare them with the project's ported rules
// (cdk8s_headroom/gitops). Nothing of either tool is copied: both are pinned modules.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/argoproj/argo-cd/gitops-engine/v3/pkg/health"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

type verdict struct {
	Kind           string `json:"kind"`
	Namespace      string `json:"namespace"`
	Name           string `json:"name"`
	ArgoCD         string `json:"argocd"`
	ArgoCDMessage  string `json:"argocdMessage"`
	KStatus        string `json:"kstatus"`
	KStatusMessage string `json:"kstatusMessage"`
}

func judge(obj *unstructured.Unstructured) (verdict, error) {
	v := verdict{Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
	argo, err := health.GetResourceHealth(obj, nil)
	if err != nil {
		return v, fmt.Errorf("argo cd health of %s/%s: %w", v.Kind, v.Name, err)
	}
	if argo != nil {
		v.ArgoCD, v.ArgoCDMessage = string(argo.Status), argo.Message
	}
	res, err := status.Compute(obj)
	if err != nil {
		return v, fmt.Errorf("kstatus of %s/%s: %w", v.Kind, v.Name, err)
	}
	v.KStatus, v.KStatusMessage = string(res.Status), res.Message
	return v, nil
}

func run(in io.Reader, out io.Writer) error {
	var list unstructured.UnstructuredList
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	if err := list.UnmarshalJSON(data); err != nil {
		return fmt.Errorf("stdin is not a kubectl List: %w", err)
	}
	verdicts := []verdict{}
	for i := range list.Items {
		v, err := judge(&list.Items[i])
		if err != nil {
			return err
		}
		verdicts = append(verdicts, v)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(verdicts)
}

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "headroom-health:", err)
		os.Exit(1)
	}
}
